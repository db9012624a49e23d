package process_test

import (
	"math"
	"strconv"

	"github.com/balloc/balloc/internal/proctable"
)

// Leaky bins' rows: a whole trial of rounds (proctable.Row.Whole) against
// the direct engine on the battery's 12 bins, from the default even spread
// of the run's balls, from a spike of them in bin 0, and from empty
// (--balls 0: SlowBalls {0}), over 1000 rounds; and, at 3 or 4 rounds (a
// row's rounds are its law's too), the exact law of the load vector
// (Row.Final) for n = 2 and 3 over the whole state, beside the same slow
// loop. Direct engine only: leaky has no Histogram, no Placer and no
// --weights, so the battery runs neither the histogram, the supermarket nor
// the weighted checks.
func init() {
	const even, spike, empty = "even", "spike", "empty"
	for _, r := range []struct {
		rounds, d int
		lambda    float64
		start     string
		n, m      int // the law's, for a row with one
	}{
		{1000, 1, 0.5, even, 0, 0},
		{1000, 2, 0.9, empty, 0, 0},
		{1000, 3, 0.9, spike, 0, 0},
		{1000, 2, 0.5, spike, 0, 0},
		{3, 1, 0.5, even, 3, 3},
		{4, 2, 0.9, empty, 3, 0},
		{3, 3, 0.9, spike, 3, 4},
		{4, 2, 0.5, spike, 2, 3},
	} {
		row := proctable.Row{Process: "leaky", Params: map[string]string{"rounds": strconv.Itoa(r.rounds), "lambda": strconv.FormatFloat(r.lambda, 'g', -1, 64), "d": strconv.Itoa(r.d)},
			Whole: slowLeaky(uint64(r.rounds), r.lambda, r.d, r.start == spike)}
		if r.start == spike {
			row.Params["initial"] = "spike"
		}
		if r.start == empty {
			row.SlowBalls = []uint64{0} // --balls 0 only
		}
		if r.n > 0 {
			row.Final, row.N, row.M = leakyLaw(r.n, r.m, r.rounds, r.lambda, r.d, r.start == spike), r.n, r.m
		}
		table = append(table, row)
	}
}

// leakyStart is the trial's start of m balls in n bins: rbb's even spread
// (leaky's default --initial uniform), or all m in bin 0 (spike).
func leakyStart(n, m uint64, spike bool) []uint64 {
	if spike {
		loads := make([]uint64, n)
		loads[0] = m
		return loads
	}
	return rbbStart(n, m)
}

// slowLeaky: from the start of the trial's m balls, R rounds; in each, a
// batch of Binomial(n, λ) balls (one draw), then each ball of the batch
// draws d uniform bins one after another and goes to the first of the least
// loaded by the loads at the round's start, and then every non-empty bin
// deletes one ball (a ball can leave in the round it arrived).
func slowLeaky(rounds uint64, lambda float64, d int, spike bool) func(uint64, proctable.Trial) []uint64 {
	return func(n uint64, tr proctable.Trial) []uint64 {
		loads := leakyStart(n, tr.Balls, spike)
		for range rounds {
			k := tr.Choices.Binomial(n, lambda)
			start := append([]uint64(nil), loads...)
			for range k {
				best := tr.Choices.Bounded(uint32(n))
				for range d - 1 {
					if j := tr.Choices.Bounded(uint32(n)); start[j] < start[best] {
						best = j
					}
				}
				loads[best]++
			}
			for i := range loads {
				if loads[i] > 0 {
					loads[i]--
				}
			}
		}
		return loads
	}
}

// leakyLaw is the exact law of the load vector after R rounds from the
// start of m balls in n bins: each round, k arrivals with probability
// C(n, k) λ^k (1−λ)^(n−k); each arrival's n^d equally likely sample
// tuples, the first of the least loaded by the round-start vector taking
// the ball; then one ball off every non-empty bin.
func leakyLaw(n, m, rounds int, lambda float64, d int, spike bool) func() map[string]float64 {
	return func() map[string]float64 {
		v := make([]byte, n)
		for i, x := range leakyStart(uint64(n), uint64(m), spike) {
			v[i] = byte(x)
		}
		tuples := int(math.Pow(float64(n), float64(d)))
		law := map[string]float64{string(v): 1}
		for range rounds {
			next := map[string]float64{}
			for s, p := range law {
				start := []byte(s)
				place := map[string]float64{s: 1} // after j arrivals
				for k := 0; k <= n; k++ {
					if k > 0 {
						placed := map[string]float64{}
						for u, q := range place {
							for c := range tuples {
								best, x := c%n, c/n // the samples: c's base-n digits, the first lowest
								for range d - 1 {
									if j := x % n; start[j] < start[best] {
										best = j
									}
									x /= n
								}
								w := []byte(u)
								w[best]++
								placed[string(w)] += q / float64(tuples)
							}
						}
						place = placed
					}
					pk := binomialPMF(n, k, lambda)
					for u, q := range place {
						w := []byte(u)
						for i := range w {
							if w[i] > 0 {
								w[i]--
							}
						}
						next[string(w)] += p * pk * q
					}
				}
			}
			law = next
		}
		return law
	}
}

// binomialPMF is P(Binomial(n, p) = k).
func binomialPMF(n, k int, p float64) float64 {
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return c * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
}
