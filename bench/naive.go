package bench

import "math/rand/v2"

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
