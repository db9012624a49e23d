// Package core is balloc's model: a validated experiment (Spec: one process
// of the catalogue, core/process, with its parameters and the common
// settings), the choice of engine for it (the cost model of --engine auto,
// choose.go), its identity (Hash) and its fluid limit (FluidOf).
//
// The rooms around it, by job:
//   - core/process: the catalogue, one file per process (parameters,
//     capabilities, loops);
//   - core/engine: the engines that run one trial of a Spec (direct,
//     histogram, vector) and their memory estimates;
//   - core/hist: the histogram engine's exact samplers;
//   - core/theory: fluid limits;
//   - core/result: what a trial reports, and the measures that make it;
//   - core/sweep: sweep files (grids) and results files;
//   - core/graph, core/haar, core/units: graphs, Haar-drift plans, counts
//     and sizes.
//
// docs/ARCHITECTURE.md draws the imports and the data flow.
//
// Promises:
//   - A Spec that NewSpec returned is valid: every engine can run it without
//     further checks, and every user error was reported by NewSpec as one
//     line that names the flag and the allowed range.
//   - engine.RunTrial is a pure function of (Spec, trial index): its
//     randomness is kernels.TrialStream(seed, trial), whatever goroutine
//     calls it.
//   - Metrics cost O(n) per checkpoint and nothing per ball.
package core
