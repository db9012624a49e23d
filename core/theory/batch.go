package theory

import (
	"fmt"
	"math"
)

// Fluid limit of b-Batch (Los and Sauerwald, "Balanced Allocations in
// Batches: Simplified and Generalized", SPAA 2022: the b-Batch process, after
// Berenbrink, Czumaj, Englert, Friedetzky and Nagel 2012): balls come in batches of b, and each ball of a
// batch takes the lighter of two uniform bins as their loads were at the
// batch's start, ties to the first sample (kernels/batch.go). With n → ∞ and
// τ = b/n fixed, a batch is the standard mean-field limit of many balls whose
// decisions read a frozen state:
//
// Let p_j be the fraction of bins at load j at a batch's start and
// s_j = Σ_{k≥j} p_k. A ball's chosen bin has frozen load j with probability
// q_j = s_j² − s_{j+1}² (two-choice's law on the frozen loads: the smaller
// of two samples is j; on a tie the first sample, itself uniform, so within
// the class every bin is equally likely), independently of the other balls
// of the batch, whose choices do not change what it reads. A given bin of
// class j (there are p_j·n) so receives Binomial(b, q_j/(p_j·n)) balls,
// which tends to Poisson(λ_j), λ_j = τ·q_j/p_j = τ·(s_j + s_{j+1}); the bins
// of a class are exchangeable and nearly independent, so by the law of large
// numbers the fraction of bins at load i at the batch's end is
//
//	p'_i = Σ_{j ≤ i} p_j · e^{−λ_j} λ_j^{i−j} / (i−j)!.
//
// m balls are ⌊m/b⌋ full batches and then, as the kernel has it, a partial
// batch of m mod b balls that reads the last batch's frozen loads: the same
// map with τ' = (m mod b)/n. As b/n → 0 the map is one Euler step of
// two-choice's ODE of length τ (λ_j p_j = τ(s_j² − s_{j+1}²)), so the limit
// tends to FluidDChoice(2, m/n).
//
// The window holds the levels with mass (a bottom level at or below
// 1 − fluidOne moves onto the next, as Solve does). Heavy load: the
// map commutes with "one level up", and after P = n/gcd(b, n) batches time
// has moved by D = b/gcd(b, n) balls per bin, an integer; once the state P
// batches later is the state shifted D levels up, it stays so, and the
// remaining whole periods are skipped.

// fluidBatchSteps bounds the batch maps a b-batch limit applies (about a
// microsecond each on a window of a few dozen levels): FluidOf runs before
// the simulation.
const fluidBatchSteps = 1 << 20

// fluidPoissonCut: a Poisson term below this fraction of the largest one is
// dropped (from the mode outwards the terms fall faster than geometrically).
const fluidPoissonCut = 1e-30

// FluidBBatch is the b-batch fluid limit for batches of b balls, n bins and
// m balls; it fails when reaching m takes more than fluidBatchSteps batch
// maps and no short period lets it skip them.
func FluidBBatch(b, n, m uint64) (Profile, error) {
	p, _, err := fluidBBatch(b, n, m)
	return p, err
}

// fluidBBatch is FluidBBatch, also returning the batch maps it applied
// (the partial batch's included): its work, which the tests bound.
func fluidBBatch(b, n, m uint64) (Profile, uint64, error) {
	tau := float64(b) / float64(n)
	full, rest := m/b, m%b
	g := gcd(b, n)
	period, shift := n/g, b/g
	if full > fluidBatchSteps && period > fluidBatchSteps/4 {
		return Profile{}, 0, fmt.Errorf("the b-batch fluid limit at batch=%d needs %d batch maps, over %d, and its period bins/gcd(batch, bins) = %d batches is too long to skip them; lower --balls, or use a --batch with bins/gcd(batch, bins) ≤ %d",
			b, full, fluidBatchSteps, period, fluidBatchSteps/4)
	}
	w := &batchWindow{p: []float64{1}}
	var snap *batchWindow
	steps := uint64(0)
	for k := uint64(0); k < full; k++ {
		if steps++; steps > fluidBatchSteps {
			return Profile{}, 0, fmt.Errorf("the b-batch fluid limit at batch=%d reaches no travelling wave in %d batch steps", b, fluidBatchSteps)
		}
		w.step(tau)
		if (k+1)%period != 0 || k+1 == full {
			continue
		}
		if snap != nil && w.isShiftOf(snap, int(shift)) {
			jump := (full - (k + 1)) / period
			w.base += int(jump * shift)
			k += jump * period
			snap = nil
			continue
		}
		snap = w.clone()
	}
	if rest > 0 {
		w.step(float64(rest) / float64(n))
		steps++
	}
	return w.profile(), steps, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// batchWindow is the fraction p[k] of bins at load base+k; none elsewhere.
type batchWindow struct {
	base int
	p    []float64
	s    []float64 // scratch: s[k] = Σ_{k' ≥ k} p[k']
	next []float64 // scratch: the map's image
}

func (w *batchWindow) clone() *batchWindow {
	return &batchWindow{base: w.base, p: append([]float64(nil), w.p...)}
}

// step applies one batch of τn balls.
func (w *batchWindow) step(tau float64) {
	L := len(w.p)
	w.s = append(w.s[:0], make([]float64, L+1)...)
	for k := L - 1; k >= 0; k-- {
		w.s[k] = w.s[k+1] + w.p[k]
	}
	w.next = w.next[:0]
	for k, pk := range w.p {
		if pk == 0 {
			continue
		}
		lambda := tau * (w.s[k] + w.s[k+1])
		// The Poisson(λ) terms from the mode down and up.
		mode := int(lambda)
		top := pk * math.Exp(float64(mode)*math.Log(lambda)-lambda-lgamma(mode+1))
		if lambda == 0 {
			top = pk
		}
		add := func(j int, v float64) {
			for len(w.next) <= k+j {
				w.next = append(w.next, 0)
			}
			w.next[k+j] += v
		}
		floor := max(top*fluidPoissonCut, fluidZero)
		for j, v := mode, top; j >= 0 && v >= floor; j-- {
			add(j, v)
			v *= float64(j) / lambda
		}
		for j, v := mode+1, top*lambda/float64(mode+1); v >= floor; j++ {
			add(j, v)
			v *= lambda / float64(j+1)
		}
	}
	w.p, w.next = w.next, w.p
	// Levels at or below 1 − fluidOne leave the bottom.
	for len(w.p) > 1 && w.p[0] <= 1-fluidOne {
		w.p[1] += w.p[0]
		w.p = w.p[1:]
		w.base++
	}
	for len(w.p) > 1 && w.p[len(w.p)-1] < fluidZero {
		w.p = w.p[:len(w.p)-1]
	}
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}

// isShiftOf reports whether w is p moved up d levels, to fluidWaveTol on
// the fractions with load ≥ i (nearly full levels, where the window drops
// mass, skipped as in Window.isShiftOf).
func (w *batchWindow) isShiftOf(p *batchWindow, d int) bool {
	lo := min(w.base, p.base+d)
	hi := max(w.base+len(w.p), p.base+d+len(p.p))
	a, b := w.profile(), p.profile()
	for i := lo; i <= hi; i++ {
		x, y := a.At(i), b.At(i-d)
		if x >= fluidWaveFull || y >= fluidWaveFull {
			continue
		}
		if math.Abs(x-y) > fluidWaveTol {
			return false
		}
	}
	return true
}

// profile is the fraction of bins with load ≥ i, from the top down.
func (w *batchWindow) profile() Profile {
	p := Profile{Base: w.base + 1, S: make([]float64, len(w.p)-1), Model: "fluid limit (mean-field map at batch ends)"}
	s := 0.0
	for k := len(w.p) - 1; k >= 1; k-- {
		s += w.p[k]
		p.S[k-1] = s
	}
	for len(p.S) > 0 && p.S[len(p.S)-1] == 0 {
		p.S = p.S[:len(p.S)-1]
	}
	return p
}
