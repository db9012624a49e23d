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
func NewLoads(n uint64, layout Layout) *Loads { return newLoads(n, layout, 0) }

// newLoads returns n empty bins with room past them, beyond the slice's
// length, for the sink cells of sinks workers: cell sinkCell(w) is worker
// w's, a cache line of its own and none of the bins' lines. A sharded
// worker adds a foreign ball to its sink rather than branch on the owner
// (sharded.go: twoChoice); nothing reads a sink.
func newLoads(n uint64, layout Layout, sinks int) *Loads {
	stride := uint64(1)
	if layout == Padded {
		stride = CacheLine / 4
	}
	size := n * stride
	extra := uint64(0)
	if sinks > 0 {
		extra = uint64(sinks+1) * (CacheLine / 4)
	}
	return &Loads{cells: make([]atomic.Uint32, size, size+extra), stride: stride, n: n}
}

// sinkCell is the index in cells[:cap(cells)] of worker w's sink: past the
// bins by a whole cache line, and a cache line from any other worker's.
func (l *Loads) sinkCell(w int) uint64 {
	return uint64(len(l.cells)) + uint64(w+1)*(CacheLine/4)
}

// Snapshot copies the loads (atomic reads, not one atomic snapshot).
func (l *Loads) Snapshot() []uint32 {
	out := make([]uint32, l.n)
	for i := range out {
		out[i] = l.cells[uint64(i)*l.stride].Load()
	}
	return out
}
