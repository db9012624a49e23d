package engine

import (
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/kernels"
)

// Leaky bins on the direct engine against a literal loop of rounds on the
// same stream: the batch's size, its balls each comparing d uniform bins'
// loads at the round's start (the first of the least), then one ball off
// every non-empty bin; n = 50, from a spike and from empty, d = 1, 2, 3.
func TestLeakyMatchesLiteral(t *testing.T) {
	const n, rounds, lambda = 50, 3000, 0.8
	for _, c := range []struct {
		d       int
		balls   string
		initial string
	}{{1, "0", "uniform"}, {2, "0", "uniform"}, {3, "400", "spike"}, {2, "400", "spike"}} {
		params := map[string]string{"rounds": "3000", "lambda": "0.8", "d": string(rune('0' + c.d)), "initial": c.initial}
		var m uint64
		if c.balls == "400" {
			m = 400
		}
		s := mustSpec(t, "leaky", params, core.Common{Bins: n, Balls: m, Seed: 21, KeepLoads: true})
		res := RunTrial(s, 1, nil)

		loads := make([]uint64, n)
		if m > 0 {
			loads[0] = m
		}
		rng := kernels.TrialStream(21, 1, kernels.LaneChoices)
		for range rounds {
			k := rng.Binomial(n, lambda)
			frozen := append([]uint64(nil), loads...)
			for range k {
				best := rng.Bounded(n)
				for j := 1; j < c.d; j++ {
					if x := rng.Bounded(n); frozen[x] < frozen[best] {
						best = x
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
		for i, want := range loads {
			if res.Loads[i] != float64(want) {
				t.Fatalf("d = %d from %s: bin %d holds %v, %d by the literal loop", c.d, c.initial, i, res.Loads[i], want)
			}
		}
	}
}

// Leaky bins with d = 1 at stationarity: each bin is a discrete-time queue
// with Binomial(n, λ/n) arrivals a round and one deletion, whose exact
// stationary law gives P(empty after a round) = (1 − λ)/(1 − λ/n)^n and
// mean load λ²(1 − 1/n)/(2(1 − λ)) (from E[leak] = λ and the second moment
// of Q' = (Q + A − 1)⁺); the averages over the rounds past the burn-in,
// within 4 standard errors over trials. And the leak per bin and round is
// λ in expectation, for d = 2 too.
func TestLeakyStationaryLaw(t *testing.T) {
	const n, lambda = 1000, 0.8
	rounds, trials := "4000", 8
	if testing.Short() {
		rounds, trials = "2000", 4
	}
	for _, d := range []string{"1", "2"} {
		s := mustSpec(t, "leaky", map[string]string{"rounds": rounds, "lambda": "0.8", "d": d}, core.Common{Bins: n, Trials: trials, Seed: 5})
		var empty, load, leak []float64
		for k := range trials {
			x := RunTrial(s, uint64(k), nil).Leaky()
			empty, load, leak = append(empty, x.MeanEmpty), append(load, x.MeanBalls), append(leak, x.Leaked)
		}
		check := func(what string, xs []float64, want float64) {
			m, v := 0.0, 0.0
			for _, x := range xs {
				m += x / float64(len(xs))
			}
			for _, x := range xs {
				v += (x - m) * (x - m) / float64(len(xs)-1)
			}
			se := math.Sqrt(v / float64(len(xs)))
			if math.Abs(m-want) > 4*se {
				t.Errorf("d = %s: %s %.5f ± %.5f, want %.5f", d, what, m, se, want)
			}
		}
		check("leak per bin and round", leak, lambda)
		if d == "1" {
			check("empty fraction", empty, (1-lambda)/math.Pow(1-lambda/n, n))
			check("mean load", load, lambda*lambda*(1-1.0/n)/(2*(1-lambda)))
		}
	}
}
