package bench

import (
	"math"
	"math/rand/v2"
	"sort"
)

// The naive loops: what one writes first, with the same rules as balloc's
// processes (ties to the first least-loaded sample, equal in law to random
// tie-breaking), math/rand/v2's top-level generator and []int loads.

func naiveOneChoice(loads []int, m int) {
	for range m {
		loads[rand.IntN(len(loads))]++
	}
}

func naiveDChoice(loads []int, m, d int) {
	n := len(loads)
	for range m {
		best := rand.IntN(n)
		for k := 1; k < d; k++ {
			if j := rand.IntN(n); loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

func naiveOnePlusBeta(loads []int, m int, beta float64) {
	n := len(loads)
	for range m {
		i := rand.IntN(n)
		if rand.Float64() < beta {
			if j := rand.IntN(n); loads[j] < loads[i] {
				i = j
			}
		}
		loads[i]++
	}
}

func naiveAlwaysGoLeft(loads []int, m, d int) {
	g := len(loads) / d
	for range m {
		best := rand.IntN(g)
		for k := 1; k < d; k++ {
			if j := k*g + rand.IntN(g); loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

func naiveTwoThinning(loads []int, m int, theta float64) {
	n := len(loads)
	for t := range m {
		i := rand.IntN(n)
		if float64(loads[i]) >= float64(t)/float64(n)+theta {
			i = rand.IntN(n)
		}
		loads[i]++
	}
}

// naiveQuantile keeps a count of bins per load and ranks the sampled bin by
// summing the counts above its load, ties by a uniform coin.
func naiveQuantile(loads []int, m int, delta float64) {
	n := len(loads)
	k := int(math.Ceil(delta * float64(n)))
	count := []int{n}
	for range m {
		i := rand.IntN(n)
		above := 0
		for v := loads[i] + 1; v < len(count); v++ {
			above += count[v]
		}
		if e := count[loads[i]]; above < k && (above+e <= k || rand.IntN(e) < k-above) {
			i = rand.IntN(n)
		}
		count[loads[i]]--
		loads[i]++
		if loads[i] == len(count) {
			count = append(count, 0)
		}
		count[loads[i]]++
	}
}

func naiveWeightedDChoice(loads []float64, m, d int) {
	n := len(loads)
	for range m {
		best := rand.IntN(n)
		for k := 1; k < d; k++ {
			if j := rand.IntN(n); loads[j] < loads[best] {
				best = j
			}
		}
		loads[best] += rand.ExpFloat64()
	}
}

// The noisy and outdated-information settings, written the obvious way.

func naiveGComp(loads []int, m, g int, random bool) {
	n := len(loads)
	for range m {
		i, j := rand.IntN(n), rand.IntN(n)
		d := loads[i] - loads[j]
		if d < 0 {
			d = -d
		}
		choice := i
		switch {
		case d > g:
			if loads[j] < loads[i] {
				choice = j
			}
		case random:
			if rand.IntN(2) == 1 {
				choice = j
			}
		default:
			if loads[j] > loads[i] {
				choice = j
			}
		}
		loads[choice]++
	}
}

func naiveSigmaNoisyLoad(loads []int, m int, sigma float64) {
	n := len(loads)
	for range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if float64(loads[j])+sigma*rand.NormFloat64() < float64(loads[i])+sigma*rand.NormFloat64() {
			i = j
		}
		loads[i]++
	}
}

func naiveRhoGauss(loads []int, m int, sigma float64) {
	n := len(loads)
	for range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if loads[j] < loads[i] {
			i, j = j, i // i is the lighter
		}
		d := float64(loads[j] - loads[i])
		wrong := 0.5 * math.Erfc(d/(2*sigma))
		if rand.Float64() < wrong {
			i = j
		}
		loads[i]++
	}
}

// naiveTauDelayFixed keeps the loads as of τ balls ago and a ring of bins.
func naiveTauDelayFixed(loads []int, m, tau int) {
	n := len(loads)
	past := make([]int, n)
	ring := make([]int, tau)
	for t := range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if past[j] < past[i] {
			i = j
		}
		loads[i]++
		if t >= tau {
			past[ring[t%tau]]++
		}
		ring[t%tau] = i
	}
}

// naiveTauDelayUniform keeps every bin's allocation times and counts the
// recent ones by binary search.
func naiveTauDelayUniform(loads []int, m, tau int) {
	n := len(loads)
	times := make([][]int, n)
	past := func(i, t, a int) int {
		return sort.SearchInts(times[i], t-a) // balls to i before time t−a
	}
	for t := range m {
		i, j := rand.IntN(n), rand.IntN(n)
		if past(j, t, rand.IntN(tau+1)) < past(i, t, rand.IntN(tau+1)) {
			i = j
		}
		loads[i]++
		times[i] = append(times[i], t)
	}
}

// naiveBatch copies the loads at the start of every batch.
func naiveBatch(loads []int, m, b int) {
	n := len(loads)
	frozen := make([]int, n)
	for t := range m {
		if t%b == 0 {
			copy(frozen, loads)
		}
		i, j := rand.IntN(n), rand.IntN(n)
		if frozen[j] < frozen[i] {
			i = j
		}
		loads[i]++
	}
}

// naiveTauDelayAdversarial shows the lighter bin's load now and the heavier
// bin's load τ balls ago.
func naiveTauDelayAdversarial(loads []int, m, tau int) {
	n := len(loads)
	past := make([]int, n)
	ring := make([]int, tau)
	for t := range m {
		i, j := rand.IntN(n), rand.IntN(n)
		ri, rj := loads[i], loads[j]
		if loads[i] < loads[j] {
			rj = past[j]
		} else if loads[j] < loads[i] {
			ri = past[i]
		}
		if rj < ri {
			i = j
		}
		loads[i]++
		if t >= tau {
			past[ring[t%tau]]++
		}
		ring[t%tau] = i
	}
}
