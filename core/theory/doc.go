// Package theory holds balloc's fluid limits: the mean-field ODE solver and
// the systems of the processes that share it (Profile is a prediction of the
// fraction of bins at each load). A process's file in core/process says which
// limit is its own (its Fluid method); result.CompareTheory sets a profile
// beside simulated histograms.
package theory
