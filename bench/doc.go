// Package bench holds balloc's end-to-end benchmarks and the naive reference
// loops they are measured against in the same run.
//
// Each benchmark reports balls/s. BenchmarkDirect runs engine.RunTrial — the
// whole trial a user gets, load array, allocation loop and final metrics —
// for every process at n = 10^4 and n = 10^7 bins; BenchmarkNaive runs the
// loop a first implementation would write: math/rand/v2's top-level
// functions and []int loads. `make bench` prints both and their ratio.
package bench
