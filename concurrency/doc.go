// Package concurrency runs balloc's work on many goroutines: the trial
// worker pool, and the concurrent allocator (racy, cas, local-batch and
// sharded modes, real or emulated) with the ages its balls decided on.
//
// Promises:
//   - Results never depend on how many workers run them: a trial is a pure
//     function of its index, and the pool hands results back in index order.
//   - Nothing on a per-ball path takes a lock; the pool's own
//     synchronisation is per trial.
package concurrency
