package process_test

import (
	"slices"

	"github.com/balloc/balloc/internal/proctable"
)

// The optimal policy's rows (two-thinning --threshold optimal, k-thinning
// --thresholds optimal): the slow loop takes each decision from its own
// backward induction over sorted load vectors (optDP, memoised by vector,
// not core/optimal's ranked tables), at sizes whose states are few
// (Row.SlowBins, Row.SlowBalls); the exact law of the policy for tiny n on
// both engines.
func init() {
	slow := []uint64{1, 2, 3, 8, 12}
	table = append(table,
		proctable.Row{Process: "two-thinning", Params: map[string]string{"threshold": "optimal"}, Slow: slowOptimal(2),
			Law: optimalLaw(3, 6, 2), N: 3, M: 6, SlowBins: 5, SlowBalls: slow},
		proctable.Row{Process: "k-thinning", Params: map[string]string{"k": "3", "thresholds": "optimal"}, Slow: slowOptimal(3),
			Law: optimalLaw(3, 5, 3), N: 3, M: 5, SlowBins: 5, SlowBalls: slow},
		proctable.Row{Process: "k-thinning", Params: map[string]string{"k": "4", "thresholds": "optimal"}, Slow: slowOptimal(4),
			Law: optimalLaw(4, 5, 4), N: 4, M: 5, SlowBins: 4, SlowBalls: []uint64{1, 5, 10}},
	)
}

// optDP is K-Thinning's optimum over n bins and m balls by backward
// induction on the sorted load vector s (ascending, one byte a bin): W(s)
// is the maximum load once s holds m balls, else U_K(s), with
// U_1(s) = Σ_ℓ c_ℓ w_ℓ / n and U_c(s) = Σ_ℓ c_ℓ min(w_ℓ, U_{c−1}(s)) / n
// over the distinct loads ℓ of s (c_ℓ bins each, ascending), w_ℓ = W(s
// with one bin of load ℓ raised); a sample of load ℓ with c ≥ 2 samples
// left is kept when w_ℓ ≤ U_{c−1}(s) (a tie keeps). The sums run in
// ascending ℓ, each term c_ℓ·x, divided by n at the end, so that equal
// values compare equal here and in the table.
type optDP struct {
	n, m, k int
	w       map[string]float64
}

func newOptDP(n, m, k int) *optDP { return &optDP{n, m, k, map[string]float64{}} }

// levels are s's distinct loads, ascending, with their bins.
func levels(s []byte) (loads []byte, counts []int) {
	for _, x := range s {
		if len(loads) == 0 || loads[len(loads)-1] != x {
			loads, counts = append(loads, x), append(counts, 0)
		}
		counts[len(counts)-1]++
	}
	return loads, counts
}

// raise is s with its last bin of load l (the sorted order kept) raised.
func raise(s []byte, l byte) []byte {
	r := slices.Clone(s)
	i := slices.IndexFunc(r, func(x byte) bool { return x > l })
	if i < 0 {
		i = len(r)
	}
	r[i-1]++
	return r
}

// W is the value of s.
func (d *optDP) W(s []byte) float64 {
	if v, ok := d.w[string(s)]; ok {
		return v
	}
	t := 0
	for _, x := range s {
		t += int(x)
	}
	var v float64
	if t == d.m {
		v = float64(s[len(s)-1])
	} else {
		v = d.U(s, d.k)
	}
	d.w[string(s)] = v
	return v
}

// U is U_c(s).
func (d *optDP) U(s []byte, c int) float64 {
	loads, counts := levels(s)
	var u float64
	if c == 1 {
		for i, l := range loads {
			u += float64(counts[i]) * d.W(raise(s, l))
		}
		return u / float64(d.n)
	}
	prev := d.U(s, c-1)
	for i, l := range loads {
		u += float64(counts[i]) * min(d.W(raise(s, l)), prev)
	}
	return u / float64(d.n)
}

// keep says whether a sample of load l is kept at s with c ≥ 2 left.
func (d *optDP) keep(s []byte, l byte, c int) bool {
	return d.W(raise(s, l)) <= d.U(s, c-1)
}

// sorted is loads as a sorted vector.
func sorted[T int | uint64](loads []T) []byte {
	s := make([]byte, len(loads))
	for i, x := range loads {
		s[i] = byte(x)
	}
	slices.Sort(s)
	return s
}

// slowOptimal: up to K uniform samples, one draw each, sample j < K kept
// when optDP keeps its load at the sorted loads (K − j samples left), the
// K-th kept.
func slowOptimal(k int) func([]uint64, proctable.Trial, uint64) {
	var d *optDP
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := len(loads)
		if t == 0 {
			d = newOptDP(n, int(tr.Balls), k)
		}
		s := sorted(loads)
		i := tr.Choices.Bounded(uint32(n))
		for c := k; c >= 2 && !d.keep(s, byte(loads[i]), c); c-- {
			i = tr.Choices.Bounded(uint32(n))
		}
		loads[i]++
	}
}

// optimalLaw: sample j reached with the chance every earlier one was
// rejected, kept where optDP keeps it; the K-th uniform.
func optimalLaw(n, m, k int) proctable.Transition {
	d := newOptDP(n, m, k)
	return func(loads []int, _ int) []float64 {
		s := sorted(loads)
		p := make([]float64, n)
		reach := 1.0
		for c := k; c >= 2; c-- {
			fail := 0.0
			for i, l := range loads {
				if d.keep(s, byte(l), c) {
					p[i] += reach / float64(n)
				} else {
					fail += 1 / float64(n)
				}
			}
			reach *= fail
		}
		for i := range p {
			p[i] += reach / float64(n)
		}
		return p
	}
}
