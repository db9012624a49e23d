package kernels

import (
	"slices"
	"testing"
)

// The idle set against a slice of flags: after random joins and takes, the
// j-th idle bin in index order is the one a scan of the flags finds, over
// many words (n = 1000 and 70001: a Fenwick descent of several levels).
func TestIdleSetTakeIsTheJthIdleBin(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 1000, 70001} {
		r := NewPCG32(uint64(n), 7)
		loads := make([]uint32, n)
		for i := range loads {
			if r.Bounded(3) == 0 {
				loads[i] = 1
			}
		}
		q := NewIdleSet(loads)
		idle := make([]bool, n)
		count := uint32(0)
		for i, v := range loads {
			idle[i] = v == 0
			count += uint32(b2u(v == 0))
		}
		for step := 0; step < 20000; step++ {
			if q.Count() != count {
				t.Fatalf("n = %d, step %d: count %d, want %d", n, step, q.Count(), count)
			}
			if count > 0 && r.Bounded(2) == 0 {
				j := r.Bounded(count)
				want, k := -1, uint32(0)
				for i, f := range idle {
					if f {
						if k == j {
							want = i
							break
						}
						k++
					}
				}
				if got := q.Take(j); int(got) != want {
					t.Fatalf("n = %d, step %d: Take(%d) = %d, want %d", n, step, j, got, want)
				}
				idle[want] = false
				count--
				continue
			}
			i := r.Bounded(uint32(n))
			if !idle[i] {
				q.Join(i)
				idle[i] = true
				count++
			}
		}
	}
}

// The supermarket's JIQ loop against a literal one at n = 1000, event for
// event: the idle bins in a list (in index order at the start), a bin that
// a departure empties appended, an arrival taking the entry of a uniform
// index, the last entry moved into its place.
func TestSupermarketJIQMatchesLiteral(t *testing.T) {
	const n, events = 1000, 400000
	sm, err := NewSupermarket(0.9, Placement{D: 1, Beta: 1, Idle: true})
	if err != nil {
		t.Fatal(err)
	}
	fast := make([]uint32, n)
	r := NewPCG32(3, 5)
	SupermarketDirect(fast, &r, events, sm, NewTally(n))

	slow := make([]uint32, n)
	var idle []uint32
	for i := range uint32(n) {
		idle = append(idle, i)
	}
	s := NewPCG32(3, 5)
	arrive, _ := NewBernoulli(0.9 / 1.9)
	for e := range events {
		if !arrive.Flip(&s) {
			if i := s.Bounded(n); slow[i] > 0 {
				slow[i]--
				if slow[i] == 0 {
					idle = append(idle, i)
				}
			}
			continue
		}
		if k := len(idle); k > 0 {
			j := s.Bounded(uint32(k))
			slow[idle[j]]++
			idle[j] = idle[k-1]
			idle = idle[:k-1]
		} else {
			slow[s.Bounded(n)]++
		}
		for i, v := range slow {
			if e%4096 != 0 {
				break
			}
			if (v == 0) != slices.Contains(idle, uint32(i)) {
				t.Fatalf("bin %d of load %d: in the idle list %v", i, v, !slices.Contains(idle, uint32(i)))
			}
		}
	}
	for i := range slow {
		if fast[i] != slow[i] {
			t.Fatalf("bin %d: %d by the event loop, %d by the literal loop", i, fast[i], slow[i])
		}
	}
	if r != s {
		t.Fatalf("the streams differ at the end")
	}
}
