package process_test

import (
	"slices"

	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

// IDEA's rows ("Perfectly Balanced Allocation With Estimated Average Using
// Expected Constant Retries", §3): the slow loop on the battery's 12 bins
// for each hold rule (numbered, numbered with --held carry, sampling,
// oracle) and d ∈ {1, 2, 4} (d = 2 numbered is the direct engine's own
// loop, the others its general one; d = 3 is left out because the
// battery's constant weights, 2.5/3 a share, are inexact in floating
// point), and the exact law of the loads (Row.Final: the next bin depends
// on the estimates too, so the law runs over loads and estimates) for
// numbered, carry, oracle and sampling (plain and rounded) at n = 2, 3.
func init() {
	ip := func(kv ...string) map[string]string {
		p := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i]] = kv[i+1]
		}
		return p
	}
	numbered := ideaRule{d: 2, gamma: 8}
	table = append(table,
		proctable.Row{Process: "idea", Params: ip("d", "2"), Slow: slowIdea(numbered)},
		proctable.Row{Process: "idea", Params: ip("d", "4", "retries", "2"), Slow: slowIdea(ideaRule{d: 4, gamma: 2})},
		proctable.Row{Process: "idea", Params: ip("d", "1", "retries", "3"), Slow: slowIdea(ideaRule{d: 1, gamma: 3})},
		proctable.Row{Process: "idea", Params: ip("d", "2", "held", "carry"), Slow: slowIdea(ideaRule{d: 2, gamma: 8, carry: true})},
		proctable.Row{Process: "idea", Params: ip("d", "2", "variant", "oracle", "retries", "3"), Slow: slowIdea(ideaRule{d: 2, gamma: 3, oracle: true})},
		proctable.Row{Process: "idea", Params: ip("d", "2", "variant", "sampling", "sample-size", "3"), Slow: slowIdea(ideaRule{d: 2, gamma: 8, sample: 3})},
		proctable.Row{Process: "idea", Params: ip("d", "4", "retries", "3", "variant", "sampling", "sample-size", "2", "sample-rule", "rounded"),
			Slow: slowIdea(ideaRule{d: 4, gamma: 3, sample: 2, rounded: true})},
		proctable.Row{Process: "idea", Params: ip("d", "2", "retries", "2"), Final: ideaLaw(3, 5, ideaRule{d: 2, gamma: 2}), N: 3, M: 5},
		proctable.Row{Process: "idea", Params: ip("d", "2", "retries", "1", "held", "carry"), Final: ideaLaw(2, 6, ideaRule{d: 2, gamma: 1, carry: true}), N: 2, M: 6},
		proctable.Row{Process: "idea", Params: ip("d", "2", "retries", "2", "variant", "oracle"), Final: ideaLaw(3, 5, ideaRule{d: 2, gamma: 2, oracle: true}), N: 3, M: 5},
		proctable.Row{Process: "idea", Params: ip("d", "2", "retries", "2", "variant", "sampling", "sample-size", "2"),
			Final: ideaLaw(3, 6, ideaRule{d: 2, gamma: 2, sample: 2}), N: 3, M: 6},
		proctable.Row{Process: "idea", Params: ip("d", "1", "retries", "3", "variant", "sampling", "sample-size", "1", "sample-rule", "rounded"),
			Final: ideaLaw(2, 6, ideaRule{d: 1, gamma: 3, sample: 1, rounded: true}), N: 2, M: 6},
	)
}

// ideaRule is one setting of IDEA: d bins a round, γ rounds at most, and
// the hold rule: numbered (the default), with carry, sampling (sample > 0
// bins a check; rounded: the mean need only reach α − 1/2) or oracle.
type ideaRule struct {
	d, gamma, sample int
	carry, oracle    bool
	rounded          bool
}

// ideaState is a trial's bins: balls per bin, and estimates and banks in
// units of 1/(2d) of weight, so that a share w/d of a ball of weight w = a/2
// (a = 2 for unit balls, 5 for the battery's constant 2.5) is a units:
// exact integers.
type ideaState struct {
	balls, est, bank []int64
}

func newIdeaState(n int) *ideaState {
	return &ideaState{make([]int64, n), make([]int64, n), make([]int64, n)}
}

// key is bin i's estimated gap L − Â in units of 1/(2d), L = balls·a/2;
// the oracle's is n·balls, against the balls thrown before ball j
// (L ≤ W/n ⇔ n·balls ≤ j − 1 whatever the weight).
func (r ideaRule) key(s *ideaState, i int, a int64) int64 {
	if r.oracle {
		return int64(len(s.balls)) * s.balls[i]
	}
	return s.balls[i]*a*int64(r.d) - s.est[i]
}

// place puts the ball in the first least key of the last round's bins, in
// their order drawn (the definition's random tie, in law: the samples are
// i.i.d. and every one of them gets its share whichever is chosen).
func (r ideaRule) place(s *ideaState, round []int, a int64) {
	best := round[0]
	for _, i := range round[1:] {
		if r.key(s, i, a) < r.key(s, best, a) {
			best = i
		}
	}
	s.balls[best]++
}

// accepts says whether a round stops ball j: its least key at or below
// the bar (0; the oracle's j − 1, the balls thrown before).
func (r ideaRule) accepts(s *ideaState, round []int, j, a int64) bool {
	bar := int64(0)
	if r.oracle {
		bar = j - 1
	}
	lo := r.key(s, round[0], a)
	for _, i := range round[1:] {
		lo = min(lo, r.key(s, i, a))
	}
	return lo <= bar
}

// grow gives each bin of the last round (a bin drawn twice, twice) its
// share w/d of ball j. A share that takes Â past an integer α ≥ 1 of
// weight (Â ≤ α < Â + w/d, the largest such α) is held (§3) unless the
// ball's number, the weight thrown up to it, exceeds α·n (numbered: "it
// checks if the next ball selecting it has a number greater than αn"), or
// a check of sampled estimates says the system has reached α (sampling,
// §3 and Appendix A: their mean ≥ α, or ≥ α − 1/2 rounded; check draws
// the sample). A held share is dropped. With carry (numbered) it is
// banked instead: the bank and the share go in unit by unit (1/(2d)) at
// the bin's next share, as far as the rule lets each unit pass.
func (r ideaRule) grow(s *ideaState, round []int, j, a int64, check func(alpha int64) bool) {
	if r.oracle {
		return
	}
	n, unit := int64(len(s.balls)), 2*int64(r.d) // unit: Â = 1
	held := func(alpha int64) bool {
		if r.sample > 0 {
			return !check(alpha)
		}
		return j*a <= 2*alpha*n // weight thrown j·a/2 ≤ α·n
	}
	for _, i := range round {
		e := s.est[i]
		if !r.carry {
			alpha := (e + a - 1) / unit // the largest α·unit < e + a
			if alpha >= 1 && alpha*unit >= e && held(alpha) {
				continue
			}
			s.est[i] = e + a
			continue
		}
		pending := s.bank[i] + a
		for ; pending > 0; pending-- {
			if e := s.est[i]; e%unit == 0 && e >= unit && held(e/unit) {
				break
			}
			s.est[i]++
		}
		s.bank[i] = pending
	}
}

// slowIdea: ball j = t+1 draws rounds of d uniform bins (d = 2: one draw
// uniform on the n² ordered pairs, v ↦ (v div n, v mod n); else d draws of
// one bin), up to γ, stopping at the first whose least key is at or below
// the bar, then the place and the shares; sampling's checks draw their
// bins from the trial's own stream (kernels.LaneIdeaSamples).
func slowIdea(r ideaRule) func([]uint64, proctable.Trial, uint64) {
	var s *ideaState
	var sampler kernels.PCG32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n, a := len(loads), int64(2*tr.Weight)
		if float64(a) != 2*tr.Weight {
			panic("slowIdea: a weight that is not a multiple of 1/2")
		}
		if t == 0 {
			s = newIdeaState(n)
			sampler = kernels.TrialStream(tr.Seed, tr.Index, kernels.LaneIdeaSamples)
		}
		j := int64(t + 1)
		round := make([]int, r.d)
		for k := 1; ; k++ {
			if r.d == 2 {
				v := int(tr.Choices.Bounded(uint32(n * n)))
				round[0], round[1] = v/n, v%n
			} else {
				for x := range round {
					round[x] = int(tr.Choices.Bounded(uint32(n)))
				}
			}
			if k == r.gamma || r.accepts(s, round, j, a) {
				break
			}
		}
		r.place(s, round, a)
		r.grow(s, round, j, a, func(alpha int64) bool {
			var sum int64
			for range r.sample {
				sum += s.est[sampler.Bounded(uint32(n))]
			}
			dk := 2 * int64(r.d*r.sample)
			if r.rounded {
				return 2*sum >= (2*alpha-1)*dk
			}
			return sum >= alpha*dk
		})
		for i, b := range s.balls {
			loads[i] = uint64(b)
		}
	}
}

// ideaLaw is the exact law of the loads after m balls in n bins, over the
// whole state (loads, estimates, banks): each ball's last round is a
// round of rounds 1 … γ − 1 that stops it, reached when every round before
// failed, or the γ-th, whatever it holds; every ordered round has chance
// n^(−d); sampling's checks branch over every sequence of sampled bins.
func ideaLaw(n, m int, r ideaRule) func() map[string]float64 {
	return func() map[string]float64 {
		type state = string
		enc := func(s *ideaState) state {
			b := make([]byte, 0, 3*n)
			for _, x := range [][]int64{s.balls, s.est, s.bank} {
				for _, v := range x {
					b = append(b, byte(v))
				}
			}
			return string(b)
		}
		dec := func(k state) *ideaState {
			s := newIdeaState(n)
			for i := range n {
				s.balls[i], s.est[i], s.bank[i] = int64(k[i]), int64(k[n+i]), int64(k[2*n+i])
			}
			return s
		}
		var rounds [][]int
		var rec func(prefix []int)
		rec = func(prefix []int) {
			if len(prefix) == r.d {
				rounds = append(rounds, append([]int(nil), prefix...))
				return
			}
			for b := range n {
				rec(append(prefix, b))
			}
		}
		rec(nil)
		pr := 1 / float64(len(rounds))
		law := map[state]float64{enc(newIdeaState(n)): 1}
		for t := range m {
			j := int64(t + 1)
			next := map[state]float64{}
			for k, p := range law {
				s := dec(k)
				fail := 0.0
				for _, round := range rounds {
					if !r.accepts(s, round, j, 2) {
						fail += pr
					}
				}
				reach := 0.0 // chance a round is reached and stops the ball, summed over rounds 1 … γ−1
				for g := range r.gamma - 1 {
					reach += pow(fail, g)
				}
				last := pow(fail, r.gamma-1)
				for _, round := range rounds {
					q := last * pr
					if r.accepts(s, round, j, 2) {
						q += reach * pr
					}
					if q == 0 {
						continue
					}
					// Sampling's checks: every sequence of sampled bins,
					// one uniform bin at a time, grown until the shares
					// ask no more of it.
					var expand func(seq []int, pr float64)
					expand = func(seq []int, pr float64) {
						c, at, short := dec(k), 0, false
						r.place(c, round, 2)
						r.grow(c, round, j, 2, func(alpha int64) bool {
							if at+r.sample > len(seq) {
								short = true
								return false
							}
							var sum int64
							for _, b := range seq[at : at+r.sample] {
								sum += c.est[b]
							}
							at += r.sample
							dk := 2 * int64(r.d*r.sample)
							if r.rounded {
								return 2*sum >= (2*alpha-1)*dk
							}
							return sum >= alpha*dk
						})
						if !short {
							next[enc(c)] += p * q * pr
							return
						}
						for b := range n {
							expand(append(slices.Clone(seq), b), pr/float64(n))
						}
					}
					expand(nil, 1)
				}
			}
			law = next
		}
		out := map[string]float64{}
		for k, p := range law {
			out[k[:n]] += p
		}
		return out
	}
}

func pow(x float64, k int) float64 {
	y := 1.0
	for range k {
		y *= x
	}
	return y
}
