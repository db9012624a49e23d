//go:build race

package bench

const raceOn = true
