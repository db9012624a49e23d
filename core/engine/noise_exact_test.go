package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/balloc/balloc/internal/stattest"
)

// Exact laws for the noisy and outdated-information processes. Their next
// step can depend on the past (τ-Delay, b-Batch), so the law is computed over
// whole allocation sequences: for tiny n and m, every sequence of bins is
// followed with its exact probability from the process's definition in its
// paper, with ties between equal readings broken uniformly at random.

// histTransition is the law of the next bin given the bins of all balls so far.
type histTransition func(hist []int, n int) []float64

// loadsAfter returns the loads after the first t balls of hist.
func loadsAfter(hist []int, n, t int) []int {
	x := make([]int, n)
	for _, b := range hist[:max(0, t)] {
		x[b]++
	}
	return x
}

// pairLaw sums over the n² ordered pairs (i, j): decide returns the
// probability that the ball goes to j (it goes to i otherwise).
func pairLaw(n int, decide func(i, j int) float64) []float64 {
	p := make([]float64, n)
	for i := range n {
		for j := range n {
			q := decide(i, j)
			p[j] += q / float64(n*n)
			p[i] += (1 - q) / float64(n*n)
		}
	}
	return p
}

// lighter is the probability of taking j when comparing readings ri, rj
// correctly: 1, 0, or ½ on a tie.
func lighter(ri, rj float64) float64 {
	switch {
	case rj < ri:
		return 1
	case rj > ri:
		return 0
	}
	return 0.5
}

func gcompHist(rule string, g float64) histTransition {
	return func(hist []int, n int) []float64 {
		x := loadsAfter(hist, n, len(hist))
		top := 0
		for _, v := range x {
			top = max(top, v)
		}
		return pairLaw(n, func(i, j int) float64 {
			xi, xj := float64(x[i]), float64(x[j])
			if math.Abs(xi-xj) > g {
				return lighter(xi, xj)
			}
			switch rule {
			case "greedy-reverse":
				return lighter(xj, xi) // the heavier
			case "random":
				return 0.5
			}
			// max-target: raise(x) = max(0, x + 1 − max), larger wins, ties heavier.
			ri, rj := max(0, xi+1-float64(top)), max(0, xj+1-float64(top))
			if ri != rj {
				return lighter(-ri, -rj)
			}
			return lighter(xj, xi)
		})
	}
}

func rhoHist(correct func(delta float64) float64) histTransition {
	return func(hist []int, n int) []float64 {
		x := loadsAfter(hist, n, len(hist))
		return pairLaw(n, func(i, j int) float64 {
			d := float64(x[i] - x[j])
			switch {
			case d > 0: // j is lighter
				return correct(d)
			case d < 0:
				return 1 - correct(-d)
			}
			return 0.5
		})
	}
}

func delayHist(tau int, mode string) histTransition {
	return func(hist []int, n int) []float64 {
		t := len(hist)
		now := loadsAfter(hist, n, t)
		old := loadsAfter(hist, n, t-tau)
		switch mode {
		case "fixed":
			return pairLaw(n, func(i, j int) float64 { return lighter(float64(old[i]), float64(old[j])) })
		case "adversarial":
			return pairLaw(n, func(i, j int) float64 {
				ri, rj := float64(now[i]), float64(now[j])
				if now[i] < now[j] {
					rj = float64(old[j])
				} else if now[j] < now[i] {
					ri = float64(old[i])
				}
				return lighter(ri, rj)
			})
		}
		// uniform: independent ages in {0, …, τ}
		return pairLaw(n, func(i, j int) float64 {
			q := 0.0
			for ai := 0; ai <= tau; ai++ {
				for aj := 0; aj <= tau; aj++ {
					ri := float64(loadsAfter(hist, n, t-ai)[i])
					rj := float64(loadsAfter(hist, n, t-aj)[j])
					q += lighter(ri, rj)
				}
			}
			return q / float64((tau+1)*(tau+1))
		})
	}
}

func batchHist(b int) histTransition {
	return func(hist []int, n int) []float64 {
		t := len(hist)
		frozen := loadsAfter(hist, n, t-t%b)
		return pairLaw(n, func(i, j int) float64 { return lighter(float64(frozen[i]), float64(frozen[j])) })
	}
}

// batchedHist is d-choice (β = 1) or (1+β) (d = 2) in batches of b: each
// ball of a batch decides on the loads at the batch's start; ties at
// random.
func batchedHist(b, d int, beta float64) histTransition {
	return func(hist []int, n int) []float64 {
		t := len(hist)
		frozen := loadsAfter(hist, n, t-t%b)
		groups := make([][]int, d)
		for k := range groups {
			groups[k] = allBins(n)
		}
		p := bestOf(groups, false)(frozen, t)
		for i := range p {
			p[i] = beta*p[i] + (1-beta)/float64(n)
		}
		return p
	}
}

// batchedQuantileHist is Quantile(δ) in batches of b: the rank test reads
// the loads at the batch's start.
func batchedQuantileHist(b int, delta float64) histTransition {
	return func(hist []int, n int) []float64 {
		t := len(hist)
		return quantileExact(n, delta)(loadsAfter(hist, n, t-t%b), t)
	}
}

// exactLawHist follows every sequence of m balls.
func exactLawHist(n, m int, tr histTransition) map[vec]float64 {
	law := map[vec]float64{}
	var rec func(hist []int, p float64)
	rec = func(hist []int, p float64) {
		if len(hist) == m {
			v := make([]byte, n)
			for _, b := range hist {
				v[b]++
			}
			law[vec(v)] += p
			return
		}
		for b, q := range tr(hist, n) {
			if q > 0 {
				rec(append(hist, b), p*q)
			}
		}
	}
	rec(nil, 1)
	return law
}

func TestNoisyProcessesMatchExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	cases := []struct {
		process string
		params  map[string]string
		n, m    int
		law     histTransition
	}{
		{"g-adv-comp", map[string]string{"g": "1"}, 3, 6, gcompHist("greedy-reverse", 1)},
		{"g-adv-comp", map[string]string{"g": "1.7", "adversary": "random"}, 3, 6, gcompHist("random", 1)},
		{"g-adv-comp", map[string]string{"g": "2", "adversary": "max-target"}, 3, 6, gcompHist("max-target", 2)},
		{"g-myopic-comp", map[string]string{"g": "1"}, 4, 5, gcompHist("random", 1)},
		{"g-myopic-comp", map[string]string{"g": "0"}, 3, 6, gcompHist("random", 0)},
		{"sigma-noisy-load", map[string]string{"sigma": "0.8"}, 3, 6,
			rhoHist(func(d float64) float64 { return phi(d / (math.Sqrt2 * 0.8)) })},
		{"rho-noisy-comp", map[string]string{"rho": "gauss:0.8"}, 3, 6,
			rhoHist(func(d float64) float64 { return phi(d / (math.Sqrt2 * 0.8)) })},
		{"rho-noisy-comp", map[string]string{"rho": "logistic:0.5"}, 3, 6,
			rhoHist(func(d float64) float64 { return 1 / (1 + math.Exp(-d/0.5)) })},
		{"rho-noisy-comp", map[string]string{"rho": "step:1,0.25"}, 3, 6,
			rhoHist(func(d float64) float64 { return map[bool]float64{true: 0.25, false: 1}[d <= 1] })},
		{"rho-noisy-comp", map[string]string{"rho": "gauss:0"}, 3, 6, delayHist(0, "fixed")}, // two-choice
		{"tau-delay", map[string]string{"tau": "2"}, 3, 6, delayHist(2, "fixed")},
		{"tau-delay", map[string]string{"tau": "2", "delay": "uniform"}, 3, 6, delayHist(2, "uniform")},
		{"tau-delay", map[string]string{"tau": "3", "delay": "adversarial"}, 3, 6, delayHist(3, "adversarial")},
		{"b-batch", map[string]string{"batch": "3"}, 3, 7, batchHist(3)},
		{"b-batch", map[string]string{"batch": "2"}, 4, 5, batchHist(2)},
		{"d-choice", map[string]string{"d": "2", "batch": "3"}, 3, 7, batchHist(3)},
		{"d-choice", map[string]string{"d": "3", "batch": "2"}, 3, 6, batchedHist(2, 3, 1)},
		{"one-plus-beta", map[string]string{"beta": "0.5", "batch": "3"}, 3, 7, batchedHist(3, 2, 0.5)},
		{"one-plus-beta", map[string]string{"beta": "0.7", "batch": "2"}, 4, 5, batchedHist(2, 2, 0.7)},
		{"quantile", map[string]string{"delta": "0.5", "batch": "3"}, 3, 7, batchedQuantileHist(3, 0.5)},
		{"quantile", map[string]string{"delta": "0.3", "batch": "2"}, 4, 6, batchedQuantileHist(2, 0.3)},
		{"mixed-quantile", map[string]string{"delta": "0.5", "eta": "0.6", "batch": "3"}, 3, 6, func(hist []int, n int) []float64 {
			t := len(hist)
			return mix(0.6, uniformChoice(n), quantileExact(n, 0.5))(loadsAfter(hist, n, t-t%3), t)
		}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(c.process, c.params), func(t *testing.T) {
			law := exactLawHist(c.n, c.m, c.law)
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(2000+i))
			stat, limit, df := stattest.Law(law, obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
	// Power: batches are visible. (1+β) in batches of 3 is not (1+β).
	plain := exactLawHist(3, 7, batchedHist(1, 2, 0.5))
	obs3 := simulateVectors(t, exactCase{"one-plus-beta", map[string]string{"beta": "0.5", "batch": "3"}, 3, 7, nil}, trials, 5)
	if stat, limit, _ := stattest.Law(plain, obs3, trials); stat <= limit {
		t.Errorf("one-plus-beta in batches of 3 passed as plain (1+β): χ² = %.1f ≤ %.1f", stat, limit)
	}
	// Power: the delay is visible. Fixed τ = 2 is not two-choice.
	law := exactLawHist(3, 6, delayHist(0, "fixed"))
	obs := simulateVectors(t, exactCase{"tau-delay", map[string]string{"tau": "2"}, 3, 6, nil}, trials, 1)
	if stat, limit, _ := stattest.Law(law, obs, trials); stat <= limit {
		t.Errorf("tau-delay τ = 2 passed as two-choice: χ² = %.1f ≤ %.1f", stat, limit)
	}
}
