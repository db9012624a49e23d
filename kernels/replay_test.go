package kernels

import (
	"slices"
	"testing"
)

// replayReference is τ-Delay replay the obvious way: the whole history of
// placements kept, a read at age a counting the bin's balls among the first
// max(0, t − a).
func replayReference(n int, r *PCG32, ages []uint32) []uint32 {
	loads := make([]uint32, n)
	var hist []uint32
	at := func(i uint32, u int) uint32 {
		c := uint32(0)
		for _, b := range hist[:u] {
			if b == i {
				c++
			}
		}
		return c
	}
	for t, a := range ages {
		i, j := r.Bounded(uint32(n)), r.Bounded(uint32(n))
		u := max(0, t-int(a))
		if at(j, u) < at(i, u) {
			i = j
		}
		loads[i]++
		hist = append(hist, i)
	}
	return loads
}

// The replay loop against the slow reference, for ages of every size
// (zero, within the window, older than the run), fed in uneven chunks so
// the state carried between calls is checked too.
func TestReplayMatchesReference(t *testing.T) {
	const n, m = 37, 3000
	mix := TrialStream(11, 0, LaneNoise)
	for _, tau := range []uint32{0, 1, 5, 80, 4000} {
		ages := make([]uint32, m)
		for k := range ages {
			ages[k] = mix.Bounded(tau + 1)
		}
		want := replayReference(n, ptr(TrialStream(12, 0, LaneChoices)), ages)
		r := TrialStream(12, 0, LaneChoices)
		d := NewReplay[uint32](n, uint64(tau))
		loads := make([]uint32, n)
		var maxLoad uint32
		for rest, c := ages, 1; len(rest) > 0; c = c*3 + 1 {
			c = min(c, len(rest))
			maxLoad = TauDelayReplay(loads, &r, rest[:c], d, maxLoad)
			rest = rest[c:]
		}
		if !slices.Equal(loads, want) || maxLoad != slices.Max(want) {
			t.Errorf("τ = %d: replay loads differ from the reference", tau)
		}
	}
}

// Constant ages τ are DelayFixed with delay τ: the same loads from the same
// stream.
func TestReplayOfConstantAgesIsFixedDelay(t *testing.T) {
	const n, m = 100, 20000
	for _, tau := range []uint64{1, 7, 100, 30000} {
		ages := make([]uint32, m)
		for k := range ages {
			ages[k] = uint32(tau)
		}
		r1, r2 := TrialStream(3, 1, LaneChoices), TrialStream(3, 1, LaneChoices)
		noise := TrialStream(3, 1, LaneNoise)
		a, b := make([]uint32, n), make([]uint32, n)
		TauDelayReplay(a, &r1, ages, NewReplay[uint32](n, tau), 0)
		TauDelay(b, &r2, &noise, m, NewDelay[uint32](n, tau, DelayFixed, false, nil, m), 0)
		if !slices.Equal(a, b) {
			t.Errorf("τ = %d: replay of constant ages differs from DelayFixed", tau)
		}
	}
}

func ptr(r PCG32) *PCG32 { return &r }
