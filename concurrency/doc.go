// Package concurrency runs balloc on many goroutines, in two unrelated ways.
//
// Ordered (pool.go) is the trial pool of run, sweep and the library: it runs
// independent items (trials, sweep points) on a number of workers and hands
// their results to the caller in index order as soon as each is next, with
// at most that many items running or held at once.
//
// Run (allocator.go) is the concurrent allocation of `balloc concurrent`: W
// workers place the balls of one trial into one shared array of atomic
// 32-bit loads (Loads, packed or padded to a cache line a bin). Each worker
// reads loads with atomic loads, decides by the process's rule, and commits
// in one of four modes (Mode): racy (an atomic add), cas (compare-and-swap
// against the value read, retried and counted), local-batch (B decisions
// against the worker's own snapshot, then published), or sharded
// (sharded.go: each worker owns a range of bins and writes only those with
// plain stores; balls for other owners travel in batches through
// single-producer single-consumer rings, with backpressure that bounds
// every ball's age by ShardedAgeBound). A run is either real goroutines
// or emulated (emulate.go, emulate_sharded.go): W virtual workers in one
// goroutine, interleaved at random by the trial's schedule stream.
//
// What the workers saw is measured (staleness.go): for every K-th ball, the
// bin staleness (balls that landed on the chosen bin between its read and
// its commit) and the global staleness (balls placed anywhere in that time,
// read from a Striped counter, counter.go, to which each worker publishes
// its own count in its own cache-line cell). An emulated run can also record
// every ball's age in commit order, and its law, which kernels.TauDelayReplay
// replays as τ-Delay.
//
// A racy or cas run on goroutines can trace every ball's age (trace.go,
// Config.TraceAges): each worker stamps each ball with the CPU's time-stamp
// counter (fenced RDTSC, tsc_amd64.s) before its first load and after its
// commit, into a preallocated log of its own (16 bytes a ball, plain
// stores); after the run the logs are merged by commit stamp, and a ball's
// age is the number of commit stamps strictly between its two. It needs
// x86-64 with an invariant counter (TSCCheck) and costs most of the
// workers' speed (three fences a ball: 0.12–0.28× the untraced balls/s on
// this 2-core machine); the stamps order execution on each core, not the
// visibility of stores, cannot order commits closer than the cores'
// counter skew, and slow the very workers whose staleness they measure.
//
// With a supermarket spec (core.Spec.Dynamic, --arrival-rate) Run runs
// departures.go instead: each worker draws its own share of the model's
// uniformized events; an arrival decides on racy reads and commits by an
// atomic add (racy) or a compare-and-swap (cas), and a departure takes a
// ball from a uniform bin by a compare-and-swap loop only if it is
// non-empty. The final loads hold exactly the arrivals minus the
// departures committed, which Run checks. Time averages are sampled at
// the measured events only.
//
// Promises:
//   - Ordered's output never depends on the number of workers when each item
//     is a pure function of its index (a trial is): results are emitted in
//     index order.
//   - An emulated run is a pure function of its seed and trial, the same on
//     every machine; one racy worker is the sequential process. A run on
//     real goroutines is not reproducible (the scheduler decides), but its
//     totals are checked: Run fails, rather than report, when the final
//     loads do not hold exactly the balls thrown or a measured add returned
//     less than was read.
//   - Nothing on a per-ball path takes a lock or writes a counter another
//     worker writes (the loads are shared by design, except in sharded
//     mode); the pool's own synchronisation is per item.
package concurrency
