package kernels

// The thinning placement's exact integer test, for loops outside kernels
// (balloc concurrent's departures): the same constants and comparison as
// the supermarket's own thinning loops (placer.go).

// ThinConstants returns ⌈n·θ_j⌉ for each threshold, exactly (an error when
// one exceeds 2^61 in magnitude, see ThinningFits).
func ThinConstants(n uint64, thetas []float64) ([]int64, error) { return thinConstants(n, thetas) }

// ThinKeep reports whether a sample of load v is kept with present balls
// in n bins and constant c = ⌈n·θ⌉: n·v < present + c, exactly.
func ThinKeep(n, v, present uint64, c int64) bool { return thinKeep(n, v, present, c) }
