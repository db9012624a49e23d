//go:build !amd64

package kernels

// fillAsm is false off amd64: fillPass runs its portable loop.
var fillAsm = false

func fillPass32(loads *uint32, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (int, uint64) {
	panic("kernels: fillPass32 is amd64 only")
}

func fillPass64(loads *uint64, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim uint64) (int, uint64) {
	panic("kernels: fillPass64 is amd64 only")
}

func fillPass2_32(loads *uint32, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (int, uint64, uint64) {
	panic("kernels: fillPass2_32 is amd64 only")
}

func fillPass2_64(loads *uint64, n uint64, s, inc uint64, idx *[thinWin]uint32, want int, lim1, lim2 uint64) (int, uint64, uint64) {
	panic("kernels: fillPass2_64 is amd64 only")
}

func quantWalk32(w *quantWalk) { panic("kernels: quantWalk32 is amd64 only") }
