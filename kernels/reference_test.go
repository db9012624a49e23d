package kernels

// Slow, obvious versions of every allocation loop: PCG32 methods, one draw
// at a time, explicit loops. They consume the stream in the order each fast
// loop documents, so the two must leave identical loads and states.

func refOneChoice[L Load](loads []L, r *PCG32, count uint64) {
	for range count {
		loads[r.Bounded(uint32(len(loads)))]++
	}
}

func refDChoice[L Load](loads []L, r *PCG32, count uint64, d int) {
	n := uint32(len(loads))
	for range count {
		samples := make([]uint32, d)
		for k := range samples {
			samples[k] = r.Bounded(n)
		}
		best := samples[0]
		for _, j := range samples[1:] {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

func refOnePlusBeta[L Load](loads []L, r *PCG32, count uint64, coin *Bernoulli) {
	n := uint32(len(loads))
	for range count {
		two := coin.Flip(r)
		i, j := r.Bounded(n), r.Bounded(n) // j is drawn, and ignored, on one-choice steps
		if two && loads[j] < loads[i] {
			i = j
		}
		loads[i]++
	}
}

func refAlwaysGoLeft[L Load](loads []L, r *PCG32, count uint64, d int) {
	g := uint32(len(loads) / d)
	for range count {
		best := -1
		for k := range d {
			j := k*int(g) + int(r.Bounded(g))
			if best < 0 || loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

func refTwoThinning[L Load](loads []L, r *PCG32, count uint64, limit uint64) {
	n := uint32(len(loads))
	for range count {
		i := r.Bounded(n)
		if uint64(loads[i]) >= limit {
			i = r.Bounded(n)
		}
		loads[i]++
	}
}

func refWeighted(loads []float64, r *PCG32, w []float64, d int) {
	n := uint32(len(loads))
	for _, wk := range w {
		best := r.Bounded(n)
		for k := 1; k < d; k++ {
			if j := r.Bounded(n); loads[j] < loads[best] {
				best = j
			}
		}
		loads[best] += wk
	}
}

func maxOf[L loadValue](loads []L) L {
	m := loads[0]
	for _, v := range loads {
		m = max(m, v)
	}
	return m
}
