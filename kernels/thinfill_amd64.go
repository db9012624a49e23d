package kernels

// fillPass's loop in assembly (thinfill_amd64.s): the compiler's version
// keeps the rotate's count, the stream state and the mask in registers
// that it then moves about, about 33 instructions a position against 20.
// The test is an unsigned compare, exact for every load and limit.

// fillAsm is whether fillPass runs the assembly loops; tests clear it to
// check the portable one against them.
var fillAsm = true

//go:noescape
func fillPass32(loads *uint32, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (valid int, m uint64)

//go:noescape
func fillPass64(loads *uint64, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (valid int, m uint64)

//go:noescape
func fillPass2_32(loads *uint32, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)

//go:noescape
func fillPass2_64(loads *uint64, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)

// quantWalk32 is quantWalkGo (kthinning.go) for uint32 loads.
//
//go:noescape
func quantWalk32(w *quantWalk)
