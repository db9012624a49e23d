package concurrency

import (
	"fmt"
	"sync/atomic"
)

// Layout is how shared loads sit in memory.
type Layout int

const (
	// Packed: 4 bytes a bin, 16 bins a cache line. Workers adding to
	// neighbouring bins share a line (false sharing).
	Packed Layout = iota
	// Padded: one cache line a bin. No false sharing, 16× the memory.
	Padded
)

// ParseLayout reads packed or padded.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "packed":
		return Packed, nil
	case "padded":
		return Padded, nil
	}
	return 0, fmt.Errorf("--layout %q: want packed or padded", s)
}

func (l Layout) String() string { return [...]string{"packed", "padded"}[l] }

// Bytes is the memory one bin takes.
func (l Layout) Bytes() uint64 {
	if l == Padded {
		return CacheLine
	}
	return 4
}

// Loads is a flat array of atomic 32-bit load counters with a stride: bin i
// lives at cells[i·stride]. One code path serves both layouts (the stride is
// a loop-invariant multiply), so no per-ball call goes through an interface.
type Loads struct {
	cells  []atomic.Uint32
	stride uint64
	n      uint64
}

// NewLoads returns n empty bins in the layout.
func NewLoads(n uint64, layout Layout) *Loads {
	stride := uint64(1)
	if layout == Padded {
		stride = CacheLine / 4
	}
	return &Loads{cells: make([]atomic.Uint32, n*stride), stride: stride, n: n}
}

// Snapshot copies the loads (atomic reads, not one atomic snapshot).
func (l *Loads) Snapshot() []uint32 {
	out := make([]uint32, l.n)
	for i := range out {
		out[i] = l.cells[uint64(i)*l.stride].Load()
	}
	return out
}
