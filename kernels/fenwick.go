package kernels

// Fenwick is a binary indexed tree of non-negative uint64 counts with
// O(log n) point updates and rank search (Fenwick 1994).
type Fenwick struct {
	tree []uint64 // 1-based
	top  int      // the largest power of two ≤ len
}

// NewFenwick returns a tree over counts (copied), built in O(n).
func NewFenwick(counts []uint64) *Fenwick {
	f := &Fenwick{tree: make([]uint64, len(counts)+1)}
	copy(f.tree[1:], counts)
	for i := 1; i < len(f.tree); i++ {
		if j := i + i&-i; j < len(f.tree) {
			f.tree[j] += f.tree[i]
		}
	}
	f.top = 1
	for f.top*2 <= len(counts) {
		f.top *= 2
	}
	return f
}

// Add adds delta (two's complement for a decrement) to count i.
func (f *Fenwick) Add(i int, delta uint64) {
	for i++; i < len(f.tree); i += i & -i {
		f.tree[i] += delta
	}
}

// Find returns the least i whose prefix sum through i exceeds r, for r below
// the total: the index a uniform rank r falls on.
func (f *Fenwick) Find(r uint64) int {
	pos := 0
	for step := f.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(f.tree) && f.tree[next] <= r {
			pos = next
			r -= f.tree[next]
		}
	}
	return pos
}
