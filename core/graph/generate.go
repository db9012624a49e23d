package graph

import "github.com/balloc/balloc/kernels"

// STUB: replaced by the generator work.

// RandomRegular draws a uniformly random simple d-regular graph on n vertices.
func RandomRegular(spec string, n, d uint64, rng *kernels.PCG32) (*Graph, error) {
	panic("graph: RandomRegular not written yet")
}

// ErdosRenyi draws G(n, p).
func ErdosRenyi(spec string, n uint64, p float64, rng *kernels.PCG32) (*Graph, error) {
	panic("graph: ErdosRenyi not written yet")
}
