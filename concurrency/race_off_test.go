//go:build !race

package concurrency

const raceOn = false
