package concurrency

import "sync/atomic"

// CacheLine is the size the padded cells are laid out for: 64 bytes, the
// line of every x86-64 and most arm64 cores (cpuid reports it; a test checks
// the cell size against it).
const CacheLine = 64

// cell is one counter alone on its cache line, so that writers of
// different cells never contend for a line. aux is a second word the
// cell's writer may publish beside the count, so that a reader of both
// fetches one line: a sharded worker's floor (sharded.go).
type cell struct {
	v   atomic.Uint64
	aux atomic.Uint64
	_   [CacheLine - 16]byte
}

// Striped is a counter split into cache-line-padded cells, a power-of-two
// number of them indexed by a mask: each writer adds to its own cell, and a
// read sums them. A read may miss adds in flight on other cores (it is not a
// snapshot), which is the point: no add ever waits for another.
type Striped struct {
	cells []cell
	mask  int
}

// NewStriped returns a counter with at least n cells (rounded up to a power
// of two).
func NewStriped(n int) *Striped {
	size := 1
	for size < n {
		size *= 2
	}
	return &Striped{cells: make([]cell, size), mask: size - 1}
}

// Add adds delta to cell i (mod the number of cells).
func (s *Striped) Add(i int, delta uint64) { s.cells[i&s.mask].v.Add(delta) }

// Store sets cell i, for a cell with a single writer.
func (s *Striped) Store(i int, v uint64) { s.cells[i&s.mask].v.Store(v) }

// Load reads cell i.
func (s *Striped) Load(i int) uint64 { return s.cells[i&s.mask].v.Load() }

// Sum reads every cell and adds them up.
func (s *Striped) Sum() uint64 {
	t := uint64(0)
	for i := range s.cells {
		t += s.cells[i].v.Load()
	}
	return t
}

// cell returns cell i's counter, for a writer that keeps it.
func (s *Striped) cell(i int) *atomic.Uint64 { return &s.cells[i&s.mask].v }

// aux returns cell i's second word (cell.aux), for a writer that keeps it.
func (s *Striped) aux(i int) *atomic.Uint64 { return &s.cells[i&s.mask].aux }
