// Package kernels holds balloc's hot loops and nothing else: the PCG32
// random number generator, exact bounded and Bernoulli draws, the
// exponential ziggurat, and one allocation loop per process on flat load
// arrays.
//
// Promises:
//   - kernels imports nothing of balloc; its inputs are plain slices and
//     numbers, its randomness its own PCG32 streams.
//   - An allocation loop makes no interface call, closure call, map access or
//     allocation per ball. Variants are chosen by the caller once per chunk.
//   - Every loop consumes its stream in a documented order, and the
//     reference_test.go file holds a slow, obvious version of each loop that
//     consumes it the same way; the tests require identical loads.
//   - Loads are passed as dst-style slices and mutated in place; a loop
//     returns the new maximum so callers never rescan for it.
package kernels
