// Package core is balloc's model: the catalogue of processes and their
// validated parameters (Spec), the engines that run one trial of a Spec, the
// metrics that turn a final or intermediate load state into a Result, and the
// theory (fluid limits) that predictions are drawn from.
//
// Promises:
//   - A Spec that NewSpec returned is valid: every engine can run it without
//     further checks, and every user error was reported by NewSpec as one
//     line that names the flag and the allowed range.
//   - RunTrial is a pure function of (Spec, trial index): its randomness is
//     kernels.TrialStream(seed, trial), whatever goroutine calls it.
//   - Metrics cost O(n) per checkpoint and nothing per ball.
package core
