package kernels

import "math"

// Slow, obvious versions of the noisy and outdated-information loops, each
// following the definition literally and consuming the streams as the fast
// loops document.

// refGCompW: w == nil means unit weights; loads hold integers as float64.
func refGComp(loads []float64, r, noise *PCG32, w []float64, count int, g float64, rule GRule) {
	n := uint32(len(loads))
	for k := range count {
		wk := 1.0
		if w != nil {
			wk = w[k]
		}
		i, j := r.Bounded(n), r.Bounded(n)
		var coin uint32
		if rule == GRandom {
			coin = noise.Uint32()
		}
		top := loads[0]
		for _, x := range loads {
			top = max(top, x)
		}
		li, lj := loads[i], loads[j]
		choice := i
		if absDiff(li, lj) > g {
			if lj < li {
				choice = j
			}
		} else {
			switch rule {
			case GHeavier:
				if lj > li {
					choice = j
				}
			case GRandom:
				if coin >= 1<<31 {
					choice = j
				}
			case GMaxTarget:
				ri, rj := math.Max(0, li+wk-top), math.Max(0, lj+wk-top)
				if rj > ri || (rj == ri && lj > li) {
					choice = j
				}
			}
		}
		loads[choice] += wk
	}
}

func refSigma(loads []float64, r, noise *PCG32, w []float64, count int, sigma float64) {
	n := uint32(len(loads))
	for k := range count {
		i, j := r.Bounded(n), r.Bounded(n)
		zi, zj := noise.Normal(), noise.Normal()
		choice := i
		// x_j + σz_j < x_i + σz_i, arranged as in the loop so that both
		// round alike: σ(z_j − z_i) < x_i − x_j.
		if sigma*(zj-zi) < loads[i]-loads[j] {
			choice = j
		}
		if w != nil {
			loads[choice] += w[k]
		} else {
			loads[choice]++
		}
	}
}

func refRho(loads []float64, r, noise *PCG32, w []float64, count int, rho Rho) {
	n := uint32(len(loads))
	for k := range count {
		i, j := r.Bounded(n), r.Bounded(n)
		coin, err := NewBernoulli(rho.Wrong(math.Abs(loads[i] - loads[j])))
		if err != nil {
			panic(err)
		}
		wrong := coin.Flip(noise)
		lighter, other := i, j
		if loads[j] < loads[i] {
			lighter, other = j, i
		}
		choice := lighter
		if wrong {
			choice = other
		}
		if w != nil {
			loads[choice] += w[k]
		} else {
			loads[choice]++
		}
	}
}

// refDelay keeps every past load vector.
func refDelay(loads []float64, r, noise *PCG32, w []float64, count int, tau uint64, mode DelayMode, ages *Ages, history *[][]float64) {
	n := uint32(len(loads))
	if len(*history) == 0 {
		*history = append(*history, append([]float64(nil), loads...))
	}
	at := func(t, a uint64, i uint32) float64 {
		if a > t {
			return 0
		}
		return (*history)[t-a][i]
	}
	for k := range count {
		t := uint64(len(*history) - 1)
		i, j := r.Bounded(n), r.Bounded(n)
		var ri, rj float64
		switch mode {
		case DelayFixed:
			ri, rj = at(t, tau, i), at(t, tau, j)
		case DelayUniform:
			ai := uint64(noise.Bounded(uint32(tau + 1)))
			aj := uint64(noise.Bounded(uint32(tau + 1)))
			ri, rj = at(t, ai, i), at(t, aj, j)
		case DelayEmpirical:
			a := uint64(ages.Draw(noise)) // one age for both reads
			ri, rj = at(t, a, i), at(t, a, j)
		case DelayAdversarial:
			ri, rj = loads[i], loads[j]
			if loads[i] < loads[j] {
				rj = at(t, tau, j)
			} else if loads[j] < loads[i] {
				ri = at(t, tau, i)
			}
		}
		choice := i
		if rj < ri {
			choice = j
		}
		if w != nil {
			loads[choice] += w[k]
		} else {
			loads[choice]++
		}
		*history = append(*history, append([]float64(nil), loads...))
	}
}

// refBatch copies the whole array at the start of every batch.
func refBatch(loads []float64, r *PCG32, w []float64, count int, b uint64, placed *uint64, frozen *[]float64) {
	n := uint32(len(loads))
	for k := range count {
		if *placed%b == 0 {
			*frozen = append((*frozen)[:0], loads...)
		}
		i, j := r.Bounded(n), r.Bounded(n)
		choice := i
		if (*frozen)[j] < (*frozen)[i] {
			choice = j
		}
		if w != nil {
			loads[choice] += w[k]
		} else {
			loads[choice]++
		}
		*placed++
	}
}
