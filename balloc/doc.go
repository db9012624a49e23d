// Package balloc is the Go API of the balloc simulator of balanced
// allocations (balls into bins): build a Spec from a process name, its
// parameters and the sizes, run its trials one after another or in
// parallel, and read each trial's gap, maximum load and load histogram.
// A rule of your own (the Rule interface) runs the same way.
//
// The package is a thin face over balloc's internal packages (core, kernels,
// concurrency): a built-in process runs the same loops as the balloc
// command, so Spec.Run gives, seed for seed, the numbers `balloc run` prints.
// What it promises is this package's names and behaviour: the processes and
// parameters are those of `balloc run --help` (Processes lists them), a
// trial depends only on (seed, trial number), so Run and RunParallel give
// the same results in the same order. The internal packages may be
// reorganised (a registry of processes, new engines) without changing it.
//
// A user's Rule is called once per ball through an interface: it is meant
// for trying an idea, not for speed; the built-in processes keep their
// specialised kernels.
package balloc
