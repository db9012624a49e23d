// Package concurrency runs balloc's work on many goroutines: the trial
// worker pool now; per-shard counters and the concurrent allocator join it.
//
// Promises:
//   - Results never depend on how many workers run them: a trial is a pure
//     function of its index, and the pool hands results back in index order.
//   - Nothing on a per-ball path takes a lock; the pool's own
//     synchronisation is per trial.
package concurrency
