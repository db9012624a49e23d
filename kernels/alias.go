package kernels

import "fmt"

// Alias is Walker's alias table (Vose's construction, 1991) for a
// distribution over 0 … len−1 given by integer weights: a draw takes one
// bounded index and one exact comparison, O(1). Probabilities are held as
// fractions of 2^32, so each outcome's probability is its weight's share
// rounded to a multiple of 2^-32/len.
type Alias struct {
	prob  []uint32 // keep index i when a 32-bit uniform is below prob[i]
	alias []uint32
	keep  []bool // prob[i] is 2^32 (always keep): it does not fit 32 bits
}

// NewAlias builds the table for weights with a positive sum and fewer than
// 2^32 entries.
func NewAlias(weights []uint64) (*Alias, error) {
	f := make([]float64, len(weights))
	for i, w := range weights {
		f[i] = float64(w)
	}
	return NewAliasFloat(f)
}

// NewAliasFloat is NewAlias for finite non-negative real weights.
func NewAliasFloat(weights []float64) (*Alias, error) {
	n := len(weights)
	if n == 0 || uint64(n) > MaxBins {
		return nil, fmt.Errorf("kernels: alias table of %d outcomes", n)
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total <= 0 {
		return nil, fmt.Errorf("kernels: alias table with zero total weight")
	}
	a := &Alias{prob: make([]uint32, n), alias: make([]uint32, n), keep: make([]bool, n)}
	scaled := make([]float64, n)
	var small, large []int
	for i, w := range weights {
		scaled[i] = w * float64(n) / total
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s] = uint32(scaled[s] * (1 << 32))
		a.alias[s] = uint32(l)
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) { // rounding leftovers: probability 1
		a.keep[i] = true
		a.alias[i] = uint32(i)
	}
	return a, nil
}

// Draw returns an outcome. Stream: PCG32.Bounded(len), then one output.
func (a *Alias) Draw(r *PCG32) uint32 {
	var x uint32
	r.state, x = a.draw(r.state, r.inc())
	return x
}

func (a *Alias) draw(s, inc uint64) (uint64, uint32) {
	var i, c uint32
	s, i = bounded(s, inc, uint32(len(a.prob)))
	s, c = step(s, inc)
	if a.keep[i] || c < a.prob[i] {
		return s, i
	}
	return s, a.alias[i]
}

// Len is the number of outcomes.
func (a *Alias) Len() int { return len(a.prob) }

// Support counts the outcomes a draw can return.
func (a *Alias) Support() int {
	can := make([]bool, len(a.prob))
	for i := range a.prob {
		if a.keep[i] || a.prob[i] > 0 {
			can[i] = true
		}
		if !a.keep[i] { // a uniform of 2^32 − 1 is never below prob[i]
			can[a.alias[i]] = true
		}
	}
	k := 0
	for _, c := range can {
		if c {
			k++
		}
	}
	return k
}
