package kernels

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

// Slow, literal versions of the delayed loops: every ball's bin kept in a
// history, a read at age a counts the bin's balls among the first t − a,
// the adversary tries every sample. They draw as the fast loops document.

// hist is the bins of the balls placed so far, in order.
type hist []uint32

// loadAt is bin i's load after the first max(0, t − a) balls.
func (h hist) loadAt(i uint32, a uint64) uint64 {
	t := uint64(len(h))
	c := uint64(0)
	for _, b := range h[:t-min(t, a)] {
		if b == i {
			c++
		}
	}
	return c
}

// refDelayedDChoice: draws, then d readings, the first least reading wins;
// the adversary tries each sample h shown at its old load with the others
// shown now, and takes the heaviest h that wins, the first on a tie.
func refDelayedDChoice(loads []uint32, h *hist, r, noise *PCG32, count uint64, d int, coin *Bernoulli, tau uint64, mode DelayMode, ages *Ages, replay []uint32) {
	n := uint32(len(loads))
	for k := range count {
		two := true
		if coin != nil {
			two = coin.Flip(r)
		}
		s := make([]uint32, d)
		for q := range s {
			s[q] = r.Bounded(n)
		}
		age := make([]uint64, d)
		switch mode {
		case DelayFixed:
			for q := range age {
				age[q] = tau
			}
		case DelayUniform:
			for q := range age {
				age[q] = uint64(noise.Bounded(uint32(tau + 1)))
			}
		case DelayEmpirical:
			a := uint64(ages.Draw(noise))
			for q := range age {
				age[q] = a
			}
		case DelayReplay:
			for q := range age {
				age[q] = uint64(replay[k])
			}
		}
		winner := func(read []uint64) int {
			w := 0
			for q := range read {
				if read[q] < read[w] {
					w = q
				}
			}
			return w
		}
		var best int
		if mode == DelayAdversarial {
			best = -1
			for hq := range s {
				read := make([]uint64, d)
				for q, j := range s {
					read[q] = uint64(loads[j])
				}
				read[hq] = h.loadAt(s[hq], tau)
				if winner(read) == hq && (best < 0 || loads[s[hq]] > loads[s[best]]) {
					best = hq
				}
			}
		} else {
			read := make([]uint64, d)
			for q, j := range s {
				read[q] = h.loadAt(j, age[q])
			}
			best = winner(read)
		}
		if !two {
			best = 0
		}
		loads[s[best]]++
		*h = append(*h, s[best])
	}
}

// The literal loop reads every age by a walk of the whole history, O(m²)
// a case: m = 2500 in the long suite, 1000 under -short, where τ = 1, 3
// and 40 still wrap the window and τ = 5000 still outlasts the run, and
// these mutants still fail (cases failing at 1000, at 2500): (1+β)'s
// unrolled tie to the second sample (past[j] ≤ past[i]) 30, 26; the
// adversary's heavier-sample test x ≥ bx for x > bx 22, 22; the arrivals
// record's within, back ≤ span as <, 176, 186; earliest's prev step, ≤ as
// <, 27, 34.
func TestDelayedDChoiceMatchesReference(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		ages, err := NewAges([]uint32{0, 1, 4, 30}, []uint64{3, 1, 2, 1}, 30)
		if err != nil {
			t.Fatal(err)
		}
		half, err := NewBernoulli(0.5)
		if err != nil {
			t.Fatal(err)
		}
		m := uint64(2500)
		if testing.Short() {
			m = 1000
		}
		for _, n := range []int{2, 5, 64} {
			for _, d := range []int{2, 3, 5} {
				for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial, DelayEmpirical, DelayReplay} {
					for _, tau := range []uint64{1, 3, 40, 5000} {
						for _, c := range []*Bernoulli{nil, &half} {
							if c != nil && d != 2 {
								continue
							}
							name := fmt.Sprintf("n=%d/d=%d/mode=%d/tau=%d/coin=%v", n, d, mode, tau, c != nil)
							tt := tau
							if mode == DelayEmpirical {
								tt = 30
							}
							replay := make([]uint32, m)
							gen := TrialStream(9, 1, LaneNoise)
							for k := range replay {
								replay[k] = gen.Bounded(uint32(tt + 1))
							}
							fast, slow := make([]uint32, n), make([]uint32, n)
							r1, z1 := TrialStream(7, uint64(n*d), LaneChoices), TrialStream(7, uint64(n*d), LaneNoise)
							r2, z2 := r1, z1
							var dl *Delay[uint32]
							if mode == DelayReplay {
								dl = NewReplay[uint32](n, tt)
							} else {
								dl = NewDelay[uint32](n, tt, mode, false, ages, m)
							}
							checkRecord(t, &dl.arr, walk)
							var h hist
							var maxLoad uint32
							done := uint64(0)
							for _, part := range []uint64{1, 17, 300, m - 318} {
								var rp []uint32
								if mode == DelayReplay {
									rp = replay[done : done+part]
								}
								maxLoad = DelayedDChoice(fast, &r1, &z1, part, d, c, dl, rp, maxLoad)
								refDelayedDChoice(slow, &h, &r2, &z2, part, d, c, tt, mode, ages, rp)
								done += part
							}
							if !slices.Equal(fast, slow) || r1 != r2 || z1 != z2 || maxLoad != slices.Max(slow) {
								t.Errorf("%s: fast and literal loops differ", name)
							}
						}
					}
				}
			}
		}
	})
}

// At d = 2 without a coin the delayed d-choice loop is TauDelay (and
// TauDelayReplay), ball for ball, in every mode.
func TestDelayedDChoiceTwoIsTauDelay(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		ages, err := NewAges([]uint32{0, 2, 9}, []uint64{1, 1, 2}, 9)
		if err != nil {
			t.Fatal(err)
		}
		const n, m = 50, 20000
		for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial, DelayEmpirical, DelayReplay} {
			for _, tau := range []uint64{1, 9, 50, 700} {
				a, b := make([]uint32, n), make([]uint32, n)
				r1, z1 := TrialStream(3, tau, LaneChoices), TrialStream(3, tau, LaneNoise)
				r2, z2 := r1, z1
				replay := make([]uint32, m)
				for k := range replay {
					replay[k] = uint32(k*7) % uint32(tau+1)
				}
				tt := tau
				if mode == DelayEmpirical {
					tt = 9
				}
				var d1, d2 *Delay[uint32]
				if mode == DelayReplay {
					d1, d2 = NewReplay[uint32](n, tt), NewReplay[uint32](n, tt)
					DelayedDChoice(a, &r1, &z1, m, 2, nil, d1, replay, 0)
					TauDelayReplay(b, &r2, replay, d2, 0)
				} else {
					d1, d2 = NewDelay[uint32](n, tt, mode, false, ages, m), NewDelay[uint32](n, tt, mode, false, ages, m)
					DelayedDChoice(a, &r1, &z1, m, 2, nil, d1, nil, 0)
					TauDelay(b, &r2, &z2, m, d2, 0)
				}
				checkRecord(t, &d1.arr, walk)
				if !slices.Equal(a, b) || r1 != r2 || z1 != z2 {
					t.Errorf("mode %d τ = %d: delayed d-choice d = 2 is not tau-delay", mode, tau)
				}
			}
		}
	})
}

// refDelayedQuantile ranks the vector τ balls ago by sorting it: b is the
// k-th heaviest load, above the bins heavier; the tie draw is over the bins
// at b.
func refDelayedQuantile(loads []uint32, h *hist, r *PCG32, count uint64, k uint64, coin *Bernoulli, tau uint64) {
	n := uint32(len(loads))
	for range count {
		use := true
		if coin != nil {
			use = coin.Flip(r)
		}
		past := make([]uint64, n)
		for i := range past {
			past[i] = h.loadAt(uint32(i), tau)
		}
		sorted := slices.Clone(past)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a] > sorted[b] })
		b := sorted[k-1]
		above, at := uint64(0), uint32(0)
		for _, v := range past {
			if v > b {
				above++
			}
			if v == b {
				at++
			}
		}
		i, j, x := r.Bounded(n), r.Bounded(n), r.Bounded(at)
		if v := past[i]; use && (v > b || v == b && uint64(x) < k-above) {
			i = j
		}
		loads[i]++
		*h = append(*h, i)
	}
}

func TestDelayedQuantileMatchesReference(t *testing.T) {
	eta, err := NewBernoulli(0.625)
	if err != nil {
		t.Fatal(err)
	}
	const m = 2000
	for _, n := range []uint64{1, 3, 10, 64} {
		for _, k := range []uint64{1, (n + 1) / 2, n} {
			for _, tau := range []uint64{1, 4, 150, 3000} {
				for _, c := range []*Bernoulli{nil, &eta} {
					fast, slow := make([]uint32, n), make([]uint32, n)
					r1 := TrialStream(5, n*k+tau, LaneChoices)
					r2 := r1
					dl := NewDelay[uint32](int(n), tau, DelayFixed, false, nil, m)
					q := NewQuantileCounts(n, k)
					var h hist
					var maxLoad uint32
					for _, part := range []uint64{3, 500, m - 503} {
						cc := c
						if c != nil {
							e := *c
							cc = &e
						}
						maxLoad = DelayedQuantile(fast, &r1, part, q, cc, dl, maxLoad)
						refDelayedQuantile(slow, &h, &r2, part, k, cc, tau)
					}
					if !slices.Equal(fast, slow) || r1 != r2 || maxLoad != slices.Max(slow) {
						t.Errorf("n=%d k=%d τ=%d coin=%v: fast and literal loops differ", n, k, tau, c != nil)
					}
				}
			}
		}
	}
}

// refDelayedTwoThinning reads the first sample at its age; the adversary
// keeps it when both outcomes are possible and it is the heavier (or equal).
func refDelayedTwoThinning(loads []uint32, h *hist, r, noise *PCG32, count, limit, tau uint64, mode DelayMode, ages *Ages, replay []uint32) {
	n := uint32(len(loads))
	for k := range count {
		i := r.Bounded(n)
		var keep bool
		switch mode {
		case DelayAdversarial:
			j := r.Bounded(n)
			canKeep := h.loadAt(i, tau) < limit
			canPass := uint64(loads[i]) >= limit
			keep = canKeep && (!canPass || loads[i] >= loads[j])
			if !keep {
				i = j
			}
		default:
			var a uint64
			switch mode {
			case DelayFixed:
				a = tau
			case DelayUniform:
				a = uint64(noise.Bounded(uint32(tau + 1)))
			case DelayEmpirical:
				a = uint64(ages.Draw(noise))
			case DelayReplay:
				a = uint64(replay[k])
			}
			if keep = h.loadAt(i, a) < limit; !keep {
				i = r.Bounded(n)
			}
		}
		loads[i]++
		*h = append(*h, i)
	}
}

func TestDelayedTwoThinningMatchesReference(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		ages, err := NewAges([]uint32{1, 3, 20}, []uint64{2, 1, 1}, 20)
		if err != nil {
			t.Fatal(err)
		}
		const m = 2400
		for _, n := range []int{2, 7, 64} {
			for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial, DelayEmpirical, DelayReplay} {
				for _, tau := range []uint64{1, 5, 100, 4000} {
					tt := tau
					if mode == DelayEmpirical {
						tt = 20
					}
					replay := make([]uint32, m)
					for k := range replay {
						replay[k] = uint32(k*k) % uint32(tt+1)
					}
					fast, slow := make([]uint32, n), make([]uint32, n)
					r1, z1 := TrialStream(11, uint64(n)+tau, LaneChoices), TrialStream(11, uint64(n)+tau, LaneNoise)
					r2, z2 := r1, z1
					var dl *Delay[uint32]
					if mode == DelayReplay {
						dl = NewReplay[uint32](n, tt)
					} else {
						dl = NewDelay[uint32](n, tt, mode, false, ages, m)
					}
					checkRecord(t, &dl.arr, walk)
					var h hist
					var maxLoad uint32
					done := uint64(0)
					for p, part := range []uint64{1, 299, 800, m - 1100} {
						limit := uint64(p) * 300 / uint64(n) // the limit moves between calls, as core's stretches do
						var rp []uint32
						if mode == DelayReplay {
							rp = replay[done : done+part]
						}
						maxLoad = DelayedTwoThinning(fast, &r1, &z1, part, limit, dl, rp, maxLoad)
						refDelayedTwoThinning(slow, &h, &r2, &z2, part, limit, tt, mode, ages, rp)
						done += part
					}
					if !slices.Equal(fast, slow) || r1 != r2 || z1 != z2 || maxLoad != slices.Max(slow) {
						t.Errorf("n=%d mode=%d τ=%d: fast and literal loops differ", n, mode, tau)
					}
				}
			}
		}
	})
}

// Two-Thinning in batches against the literal loop: frozen loads copied at
// each batch start.
func TestBatchedTwoThinningMatchesReference(t *testing.T) {
	const m = 3000
	for _, n := range []int{3, 40} {
		for _, b := range []uint64{1, 2, 7, 40, 500} {
			fast, slow := make([]uint32, n), make([]uint32, n)
			r1 := TrialStream(2, b, LaneChoices)
			r2 := r1
			bt := NewBatch[uint32](n, b, false)
			frozen := make([]uint32, n)
			var maxLoad uint32
			for tb := uint64(0); tb < m; {
				c := min(b-tb%b, m-tb, 13) // calls end inside batches too
				limit := (tb - tb%b) / uint64(n)
				maxLoad = BatchedTwoThinning(fast, &r1, c, limit, bt, maxLoad)
				for range c {
					if tb%b == 0 {
						copy(frozen, slow)
					}
					i := r2.Bounded(uint32(n))
					if uint64(frozen[i]) >= limit {
						i = r2.Bounded(uint32(n))
					}
					slow[i]++
					tb++
				}
			}
			if !slices.Equal(fast, slow) || r1 != r2 || maxLoad != slices.Max(slow) {
				t.Errorf("n=%d b=%d: fast and literal loops differ", n, b)
			}
			if ends, _ := bt.BatchEnds(n); ends != m/b {
				t.Errorf("n=%d b=%d: %d batch ends, want %d", n, b, ends, m/b)
			}
		}
	}
}

// 64-bit loads (runs of 2^32 balls or more) give the 32-bit runs.
func TestDelayedLoopsWide(t *testing.T) {
	const n, m = 30, 4000
	eta, _ := NewBernoulli(0.5)
	for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial} {
		a, b := make([]uint32, n), make([]uint64, n)
		r1, z1 := TrialStream(4, uint64(mode), LaneChoices), TrialStream(4, uint64(mode), LaneNoise)
		r2, z2 := r1, z1
		DelayedDChoice(a, &r1, &z1, m, 3, nil, NewDelay[uint32](n, 50, mode, false, nil, m), nil, 0)
		DelayedDChoice(b, &r2, &z2, m, 3, nil, NewDelay[uint64](n, 50, mode, false, nil, m), nil, 0)
		DelayedTwoThinning(a, &r1, &z1, m, 150, NewDelay[uint32](n, 50, mode, false, nil, m), nil, 0)
		DelayedTwoThinning(b, &r2, &z2, m, 150, NewDelay[uint64](n, 50, mode, false, nil, m), nil, 0)
		if mode == DelayFixed {
			DelayedQuantile(a, &r1, m, NewQuantileCounts(n, 10), &eta, NewDelay[uint32](n, 50, mode, false, nil, m), 0)
			DelayedQuantile(b, &r2, m, NewQuantileCounts(n, 10), &eta, NewDelay[uint64](n, 50, mode, false, nil, m), 0)
		}
		for i := range a {
			if uint64(a[i]) != b[i] {
				t.Fatalf("mode %d: bin %d has %d (32-bit) and %d (64-bit)", mode, i, a[i], b[i])
			}
		}
	}
}
