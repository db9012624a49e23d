//go:build race

package main

// raceOn: under the race detector (make test's second pass) the tests
// that share memory keep the goroutines and their interleavings but drop
// what only costs time there: the 2^20-bin tables and the emulated runs
// (one goroutine) of TestConcurrentDefaultsEveryModeAndSize, and most of
// the interrupted sweep's trials. The plain pass runs them all.
const raceOn = true
