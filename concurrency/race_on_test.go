//go:build race

package concurrency

// raceOn: the race detector slows every memory access some tenfold, so the
// contention tests throw fewer balls under it.
const raceOn = true
