package kernels

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

// The delayed loops' jumped draws (pcgjump.go) redo a ball whose Lemire
// product has a low half below n through bounded. At the small n of
// delay_choice_test.go that path is almost never taken (probability n/2^32 a
// draw); at n = 10^6 it is taken every few thousand draws. These tests run
// the fast loops there against literal loops whose reads of the past are
// binary searches in every bin's list of ball numbers (a history walk per
// read, as delay_choice_test.go's hist, would be O(m) a read).

// timeline is, per bin, the numbers of the balls it received, ascending.
type timeline struct {
	t     uint64
	times [][]uint64
}

func newTimeline(n int) *timeline { return &timeline{times: make([][]uint64, n)} }

// loadAt is bin i's load after the first max(0, t − a) balls.
func (h *timeline) loadAt(i uint32, a uint64) uint64 {
	end := h.t - min(h.t, a)
	return uint64(sort.Search(len(h.times[i]), func(k int) bool { return h.times[i][k] >= end }))
}

func (h *timeline) add(i uint32) {
	h.times[i] = append(h.times[i], h.t)
	h.t++
}

// refWideDChoice is refDelayedDChoice for DelayFixed and DelayAdversarial
// on a timeline: the draws, then d readings τ balls old (adversarial: each
// sample h shown old with the others shown now, the heaviest h that wins,
// the first on a tie); a coin's failure keeps the first sample.
func refWideDChoice(loads []uint32, h *timeline, r *PCG32, count uint64, d int, coin *Bernoulli, tau uint64, mode DelayMode) {
	n := uint32(len(loads))
	winner := func(read []uint64) int {
		w := 0
		for q := range read {
			if read[q] < read[w] {
				w = q
			}
		}
		return w
	}
	for range count {
		two := true
		if coin != nil {
			two = coin.Flip(r)
		}
		s := make([]uint32, d)
		for q := range s {
			s[q] = r.Bounded(n)
		}
		read := make([]uint64, d)
		best := -1
		if mode == DelayAdversarial {
			for hq := range s {
				for q, j := range s {
					read[q] = uint64(loads[j])
				}
				read[hq] = h.loadAt(s[hq], tau)
				if winner(read) == hq && (best < 0 || loads[s[hq]] > loads[s[best]]) {
					best = hq
				}
			}
		} else {
			for q, j := range s {
				read[q] = h.loadAt(j, tau)
			}
			best = winner(read)
		}
		if !two {
			best = 0
		}
		loads[s[best]]++
		h.add(s[best])
	}
}

// wideBalls is the balls a wide case throws on n bins: 20 000 on the small
// n; at n = 10^6, 10^5 in the long suite and 3·10^4 under -short, where
// the literal loop's balls were most of the package's time. A draw takes
// the slow path with probability n/2^32 ≈ 2.3·10^-4 at n = 10^6, so the
// short runs still take it (seed 41's first 3·10^4 draws: 6 times; 6·10^4,
// two-choice's: 13), every τ below 3000 still wraps the window, and
// τ = 2^20 still outlasts the run.
func wideBalls(n int) uint64 {
	switch {
	case n < 100:
		return 20_000
	case testing.Short():
		return 30_000
	}
	return 100_000
}

// minSlowPaths is how many of a wide case's first draws must take
// Lemire's slow path (rejections): 20 at the long suite's 10^5 balls, 5
// at -short's 3·10^4.
func minSlowPaths() int {
	if testing.Short() {
		return 5
	}
	return 20
}

// wideCase runs fast (in the given parts) and ref from one stream and
// compares loads, state and the maximum; at n = 10^6 it first checks the
// stream takes Lemire's slow path (minSlowPaths).
func wideCase(t *testing.T, name string, n int, m uint64, draws int, fast func(loads []uint32, r *PCG32, c uint64, maxLoad uint32) uint32, ref func(loads []uint32, r *PCG32, c uint64)) {
	t.Helper()
	seed := uint64(41)
	if least := minSlowPaths(); n >= 1e6 && rejections(seed, uint32(n), draws) < least {
		t.Fatalf("%s: the stream takes Lemire's slow path fewer than %d times; pick another seed", name, least)
	}
	a, b := make([]uint32, n), make([]uint32, n)
	r1, r2 := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
	var maxLoad uint32
	done := uint64(0)
	for _, part := range []uint64{1, 7, m / 3, m} {
		part = min(part, m-done)
		maxLoad = fast(a, &r1, part, maxLoad)
		done += part
	}
	ref(b, &r2, m)
	if !slices.Equal(a, b) || r1 != r2 || maxLoad != slices.Max(b) {
		t.Errorf("%s: fast and literal loops differ", name)
	}
}

// d-choice (d = 2, 3, 5), (1+β) and tau-delay, fixed and adversarial, at
// n = 10^6 and at n = 7, τ from 1 (every ball's predecessor) to past the
// run, the runs cut into calls of 1, 7, m/3 and the rest.
func TestDelayedDChoiceWideMatchesReference(t *testing.T) {
	half, err := NewBernoulli(0.5)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{7, 1_000_000} {
		m := wideBalls(n)
		for _, d := range []int{2, 3, 5} {
			for _, mode := range []DelayMode{DelayFixed, DelayAdversarial} {
				for _, tau := range []uint64{1, 2, 3000, 1 << 20} {
					for _, c := range []*Bernoulli{nil, &half} {
						if c != nil && d != 2 {
							continue
						}
						name := fmt.Sprintf("n=%d/d=%d/mode=%d/tau=%d/coin=%v", n, d, mode, tau, c != nil)
						var dl *Delay[uint32]
						wideCase(t, name, n, m, int(m)*d,
							func(l []uint32, r *PCG32, k uint64, mx uint32) uint32 {
								if dl == nil {
									dl = NewDelay[uint32](n, tau, mode, false, nil, m)
								}
								var noise PCG32
								return DelayedDChoice(l, r, &noise, k, d, c, dl, nil, mx)
							},
							func(l []uint32, r *PCG32, k uint64) {
								refWideDChoice(l, newTimeline(n), r, k, d, c, tau, mode)
							})
						if d == 2 && c == nil {
							var td *Delay[uint32]
							wideCase(t, "tau-delay/"+name, n, m, int(m)*d,
								func(l []uint32, r *PCG32, k uint64, mx uint32) uint32 {
									if td == nil {
										td = NewDelay[uint32](n, tau, mode, false, nil, m)
									}
									var noise PCG32
									return TauDelay(l, r, &noise, k, td, mx)
								},
								func(l []uint32, r *PCG32, k uint64) {
									refWideDChoice(l, newTimeline(n), r, k, d, nil, tau, mode)
								})
						}
					}
				}
			}
		}
	}
}

// refWideThinning is K-Thinning with every sample read τ balls old on a
// timeline: sample j kept when its old load is below limits[j], the last
// kept (Two-Thinning: one limit); with retry set (Threshold, Adaptive)
// samples until one's old load is below limits[0], each counted in pr.
func refWideThinning(loads []uint32, h *timeline, r *PCG32, count uint64, limits []uint64, retry bool, pr *Probes, tau uint64) {
	n := uint32(len(loads))
	for range count {
		i := r.Bounded(n)
		p := uint64(1)
		for j := 0; ; j++ {
			if retry {
				if h.loadAt(i, tau) < limits[0] {
					break
				}
			} else if j == len(limits) || h.loadAt(i, tau) < limits[j] {
				break
			}
			i = r.Bounded(n)
			p++
		}
		pr.Total += p
		pr.Max = max(pr.Max, p)
		loads[i]++
		h.add(i)
	}
}

// Two-Thinning, K-Thinning (K = 3) and Threshold's retries with --delay
// fixed at n = 10^6 and n = 7, limits that reject often and seldom.
func TestDelayedThinningWideMatchesReference(t *testing.T) {
	for _, n := range []int{7, 1_000_000} {
		m := wideBalls(n)
		avg := m / uint64(n) / 2 // about the loads' mean halfway
		for _, tau := range []uint64{1, 3000, 1 << 20} {
			for _, lim := range [][]uint64{{avg + 1}, {avg + 3}, {avg, avg + 2}} {
				name := fmt.Sprintf("n=%d/tau=%d/limits=%v", n, tau, lim)
				var dl *Delay[uint32]
				newDelay := func() *Delay[uint32] {
					if dl == nil {
						dl = NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
					}
					return dl
				}
				if len(lim) == 1 {
					wideCase(t, "two-thinning/"+name, n, m, int(m),
						func(l []uint32, r *PCG32, k uint64, mx uint32) uint32 {
							var noise PCG32
							return DelayedTwoThinning(l, r, &noise, k, lim[0], newDelay(), nil, mx)
						},
						func(l []uint32, r *PCG32, k uint64) {
							refWideThinning(l, newTimeline(n), r, k, lim, false, &Probes{}, tau)
						})
					dl = nil
				}
				wideCase(t, "k-thinning/"+name, n, m, int(m),
					func(l []uint32, r *PCG32, k uint64, mx uint32) uint32 {
						return DelayedKThinning(l, r, k, lim, newDelay(), mx)
					},
					func(l []uint32, r *PCG32, k uint64) {
						refWideThinning(l, newTimeline(n), r, k, lim, false, &Probes{}, tau)
					})
			}
		}
	}
}

// Threshold's and Adaptive's retries with --delay fixed: at n = 7 adaptive's
// limit ⌊t/n⌋ + 2 in calls of n balls, at n = 10^6 the limit 1 (the old
// loads of 10^5 balls are mostly 0, so every ball ends, and a tenth of the
// samples are rejected by the end).
func TestDelayedRetryWideMatchesReference(t *testing.T) {
	for _, c := range []struct {
		n    int
		m    uint64
		taus []uint64
	}{{7, 20_000, []uint64{1, 5}}, {1_000_000, 100_000, []uint64{1, 3000, 60_000}}} {
		for _, tau := range c.taus {
			name := fmt.Sprintf("n=%d/tau=%d", c.n, tau)
			limitAt := func(t uint64) (uint64, uint64) { // the limit for ball t+1 and the balls it holds for
				if c.n >= 1e6 {
					return 1, c.m - t
				}
				q := t / uint64(c.n)
				return q + 2, (q+1)*uint64(c.n) - t
			}
			n := c.n
			if n >= 1e6 && rejections(41, uint32(n), int(c.m)) < 20 {
				t.Fatalf("%s: the stream takes Lemire's slow path fewer than 20 times; pick another seed", name)
			}
			a, b := make([]uint32, n), make([]uint32, n)
			r1, r2 := TrialStream(41, 0, LaneChoices), TrialStream(41, 0, LaneChoices)
			dl := NewDelay[uint32](n, tau, DelayFixed, false, nil, c.m)
			h := newTimeline(n)
			var got, want Probes
			var maxLoad uint32
			for done := uint64(0); done < c.m; {
				limit, k := limitAt(done)
				k = min(k, c.m-done)
				maxLoad = DelayedRetry(a, &r1, k, limit, &got, dl, maxLoad)
				refWideThinning(b, h, &r2, k, []uint64{limit}, true, &want, tau)
				done += k
			}
			if !slices.Equal(a, b) || r1 != r2 || maxLoad != slices.Max(b) || got != want {
				t.Errorf("%s: fast and literal loops differ (probes %+v, literal %+v)", name, got, want)
			}
			if tau <= 5 && got.Total < c.m*21/20 {
				t.Errorf("%s: %d probes for %d balls: the case barely retries", name, got.Total, c.m)
			}
		}
	}
}

// refWideTwinning: Twinning or Packing with the sampled bin's load read τ
// balls old (at the step's first ball) against ⌈t/n⌉ for the t balls
// placed before the step; the last step cut at count.
func refWideTwinning(loads []uint32, h *timeline, r *PCG32, count uint64, packing bool, tau uint64) (samples uint64) {
	n := uint64(len(loads))
	for h.t < count {
		i := r.Bounded(uint32(n))
		samples++
		x, q := h.loadAt(i, tau), (h.t+n-1)/n
		add := uint64(1)
		if x < q {
			add = 2
			if packing {
				add = q + 1 - x
			}
		}
		for ; add > 0 && h.t < count; add-- {
			loads[i]++
			h.add(i)
		}
	}
	return samples
}

func TestDelayedTwinningWideMatchesReference(t *testing.T) {
	for _, n := range []int{7, 1_000_000} {
		m := wideBalls(n)
		for _, tau := range []uint64{1, 3000, 1 << 20} {
			for _, packing := range []bool{false, true} {
				name := fmt.Sprintf("n=%d/tau=%d/packing=%v", n, tau, packing)
				var dl *Delay[uint32]
				var st MultiStep
				var want uint64
				wideCase(t, name, n, m, int(m),
					func(l []uint32, r *PCG32, k uint64, mx uint32) uint32 {
						if dl == nil {
							dl = NewDelay[uint32](n, tau, DelayFixed, false, nil, m)
						}
						return DelayedTwinning(l, r, k, &st, packing, dl, mx)
					},
					func(l []uint32, r *PCG32, k uint64) { want = refWideTwinning(l, newTimeline(n), r, k, packing, tau) })
				if st.Samples != want {
					t.Errorf("%s: %d samples, literal loop %d", name, st.Samples, want)
				}
			}
		}
	}
}

// refWideQuantile is Quantile(δ) ranking the vector τ balls ago: that
// vector kept whole (the ball τ before entering it after each ball), its
// counts per load, and the boundary b found every ball by summing the
// counts from the top load down until they reach the k heaviest; the tie
// draw is over the bins at b. τ = 0 ranks the current vector; distinct
// redraws the second sample while it is the first.
func refWideQuantile(loads []uint32, r *PCG32, count, k, tau uint64, distinct bool) {
	n := uint32(len(loads))
	old := make([]uint64, n)
	hist := []uint64{uint64(n)}
	var placed []uint32
	for t := range count {
		b, above := uint64(len(hist)-1), uint64(0)
		for above+hist[b] < k {
			above += hist[b]
			b--
		}
		i, j := r.Bounded(n), r.Bounded(n)
		for distinct && j == i {
			j = r.Bounded(n)
		}
		x := r.Bounded(uint32(hist[b]))
		if old[i] > b || old[i] == b && uint64(x) < k-above {
			i = j
		}
		loads[i]++
		placed = append(placed, i)
		if t >= tau {
			u := placed[t-tau]
			hist[old[u]]--
			if old[u]++; old[u] == uint64(len(hist)) {
				hist = append(hist, 0)
			}
			hist[old[u]]++
		}
	}
}

// Quantile(1/2) with --delay fixed at n = 10^6 (Lemire's slow path, for
// the bins and for the tie draw over the many bins at the boundary) and at
// n = 7, τ from 1 to past the run.
func TestDelayedQuantileWideMatchesReference(t *testing.T) {
	for _, n := range []int{7, 1_000_000} {
		m := wideBalls(n)
		for _, tau := range []uint64{1, 3000, 1 << 20} {
			name := fmt.Sprintf("n=%d/tau=%d", n, tau)
			var dl *Delay[uint32]
			var q *QuantileCounts
			wideCase(t, name, n, m, 3*int(m),
				func(l []uint32, r *PCG32, c uint64, mx uint32) uint32 {
					if dl == nil {
						dl, q = NewDelay[uint32](n, tau, DelayFixed, false, nil, m), NewQuantileCounts(uint64(n), uint64(n)/2)
					}
					return DelayedQuantile(l, r, c, q, nil, dl, mx)
				},
				func(l []uint32, r *PCG32, c uint64) { refWideQuantile(l, r, c, uint64(n)/2, tau, false) })
		}
	}
}

// Quantile(1/2) --distinct (QuantileDraws' own loop for uniform distinct
// samples) at n = 10^6 and at n = 2, 7, where the samples often coincide.
func TestQuantileDistinctWideMatchesReference(t *testing.T) {
	for _, n := range []int{2, 7, 1_000_000} {
		m := wideBalls(n)
		var q *QuantileCounts
		wideCase(t, fmt.Sprintf("n=%d", n), n, m, 3*int(m),
			func(l []uint32, r *PCG32, c uint64, mx uint32) uint32 {
				if q == nil {
					q = NewQuantileCounts(uint64(n), max(1, uint64(n)/2))
				}
				return QuantileDraws(l, r, c, q, nil, NewDraws(2, false, false, true, nil), mx)
			},
			func(l []uint32, r *PCG32, c uint64) { refWideQuantile(l, r, c, max(1, uint64(n)/2), 0, true) })
	}
}

// The jumps are the generator's steps: 2 and 3 steps from any state on
// any stream.
func TestJumpsAreSteps(t *testing.T) {
	for _, seq := range []uint64{0, 1, 54, 1 << 62} {
		r := NewPCG32(seq*7+3, seq)
		add2, add3 := jumpAdds(r.inc())
		for range 1000 {
			s := r.state
			r.Uint32()
			r.Uint32()
			if s*pcgMul2+add2 != r.state {
				t.Fatalf("stream %d: two steps from %#x give %#x, the jump %#x", seq, s, r.state, s*pcgMul2+add2)
			}
			r.Uint32()
			if s*pcgMul3+add3 != r.state {
				t.Fatalf("stream %d: three steps from %#x give %#x, the jump %#x", seq, s, r.state, s*pcgMul3+add3)
			}
		}
	}
}
