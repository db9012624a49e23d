package optimal

import (
	"fmt"
	"strings"
)

// Rule is how a fixed threshold reads a sample's load.
type Rule int

const (
	// Relative keeps sample j < K of ball t+1 when its load is below
	// t/n + θj, θj = a_j/n: balloc's two-thinning --threshold and
	// k-thinning --thresholds (load < ⌈(t + a_j)/n⌉ for integer loads).
	Relative Rule = iota
	// Absolute keeps sample j < K when its load is below a_j, whatever t.
	Absolute
)

func (r Rule) String() string {
	if r == Absolute {
		return "absolute"
	}
	return "relative"
}

// Fixed is a fixed-threshold policy of K-Thinning and its exact value: A
// has K − 1 entries, one per sample before the last.
type Fixed struct {
	Rule  Rule
	N     int
	A     []int
	Value float64
}

// Theta is the relative policy's θj as a value inside its class
// ((a_j − 1)/n, a_j/n]: (a_j − ½)/n, away from the class's ends so that
// its float64 rounding stays inside.
func (f Fixed) Theta(j int) float64 { return (float64(f.A[j]) - 0.5) / float64(f.N) }

// String writes the thresholds as balloc's flags take them: θ values for
// Relative, L values for Absolute.
func (f Fixed) String() string {
	parts := make([]string, len(f.A))
	for j, a := range f.A {
		if f.Rule == Absolute {
			parts[j] = fmt.Sprint(a)
		} else {
			parts[j] = fmt.Sprintf("%.6g", f.Theta(j))
		}
	}
	return strings.Join(parts, ",")
}

// Class writes the relative thresholds' classes, as "(a−1)/n < θ ≤ a/n".
func (f Fixed) Class() string {
	parts := make([]string, len(f.A))
	for j, a := range f.A {
		parts[j] = fmt.Sprintf("(%d/%d, %d/%d]", a-1, f.N, a, f.N)
	}
	return strings.Join(parts, ",")
}

// ceilDiv is ⌈x/n⌉ for n > 0 and any integer x (Go's division truncates
// toward zero, which is the ceiling for x < 0).
func ceilDiv(x, n int) int {
	if x >= 0 {
		return (x + n - 1) / n
	}
	return -(-x / n)
}

// limits are the policy's load limits: lim[j][t] for sample j+1 of ball
// t+1, a sample kept when its load is below it.
func limits(rule Rule, n, m int, a []int) [][]int {
	lim := make([][]int, len(a))
	for j, aj := range a {
		lim[j] = make([]int, m)
		for t := range lim[j] {
			if rule == Absolute {
				lim[j][t] = aj
			} else {
				lim[j][t] = ceilDiv(t+aj, n)
			}
		}
	}
	return lim
}

// EvaluateFixed is the exact expected maximum load of the fixed-threshold
// policy (rule, a) of K-Thinning, K = len(a) + 1, on sp: the package
// comment's recursion with each minimum replaced by the policy's decision.
func EvaluateFixed(sp *Space, rule Rule, a []int) float64 {
	k := len(a) + 1
	lim := limits(rule, sp.N, sp.M, a)
	next := append([]float64(nil), sp.final...)
	cur := make([]float64, len(next))
	below := make([]int, k-1)
	sumW, sumC := make([]float64, maxMoves+1), make([]float64, maxMoves+1)
	for t := sp.M - 1; t >= 0; t-- {
		cur = cur[:sp.Level(t)]
		for j := range below {
			below[j] = lim[j][t]
		}
		for s := range cur {
			cur[s] = fixedAt(sp.MovesOf(t, s), next, float64(sp.N), below, sumW, sumC)
		}
		next, cur = cur, next[:cap(next)]
	}
	return next[0]
}

// fixedAt is the policy's U_K at one state: sample j (0-based, with
// K − j samples left) keeps a load below below[j]. Moves ascend by load, so
// the kept ones are a prefix: with the prefix sums of c_ℓ·w_ℓ and c_ℓ,
// U = (Σ_kept c_ℓ w_ℓ + (n − Σ_kept c_ℓ)·U_next)/n, each successor value
// read once. sumW and sumC are scratch of maxMoves + 1 (an array here
// would be cleared at every call).
func fixedAt(moves []Move, next []float64, n float64, below []int, sumW, sumC []float64) float64 {
	sumW[0], sumC[0] = 0, 0
	for i, mv := range moves {
		c := float64(mv.Count)
		sumW[i+1] = sumW[i] + c*next[mv.Next]
		sumC[i+1] = sumC[i] + c
	}
	u := sumW[len(moves)] / n
	for j := len(below) - 1; j >= 0; j-- {
		kept := 0
		for kept < len(moves) && int(moves[kept].Load) < below[j] {
			kept++
		}
		u = (sumW[kept] + (n-sumC[kept])*u) / n
	}
	return u
}

// Range is the grid a fixed-threshold search covers: a ∈ [Lo, Hi] for every
// sample.
type Range struct{ Lo, Hi int }

// FullRange is every distinct policy of one threshold: relative, a below
// −(m − 1) rejects every sample (as a = −(m − 1) does) and a above
// (m − 1)(n − 1) keeps every one (load ≤ t < ⌈(t + a)/n⌉); absolute, 0
// rejects all and m keeps all.
func FullRange(rule Rule, n, m int) Range {
	if rule == Absolute {
		return Range{0, m}
	}
	return Range{-(m - 1), (m-1)*(n-1) + 1}
}

// DefaultRange is the grid searched unless asked otherwise: relative
// θ ∈ [−(m − 1)/n, ⌈m/n⌉ + 2], the full range's lower end and well above
// the loads one-choice reaches at these sizes; absolute, the full range.
func DefaultRange(rule Rule, n, m int) Range {
	full := FullRange(rule, n, m)
	if rule == Absolute {
		return full
	}
	return Range{full.Lo, min(full.Hi, n*(ceilDiv(m, n)+2))}
}

// BestFixed searches the fixed-threshold policies of K-Thinning on the grid
// r: every common a (all samples alike), which for K = 2 is every policy of
// the grid; for K > 2 then coordinate descent from the best common one,
// moving one a_j by ±1 while that lowers the value (a local optimum of the
// grid, not proven global). evals counts the policies evaluated.
func BestFixed(sp *Space, k int, rule Rule, r Range) (best Fixed, evals int) {
	best = Fixed{Rule: rule, N: sp.N, Value: -1}
	a := make([]int, k-1)
	for x := r.Lo; x <= r.Hi; x++ {
		for j := range a {
			a[j] = x
		}
		v := EvaluateFixed(sp, rule, a)
		evals++
		if best.Value < 0 || v < best.Value {
			best.A, best.Value = append([]int(nil), a...), v
		}
	}
	for improved := k > 2; improved; {
		improved = false
		for j := range best.A {
			for _, step := range []int{-1, 1} {
				for {
					a := append([]int(nil), best.A...)
					a[j] += step
					if a[j] < r.Lo || a[j] > r.Hi {
						break
					}
					v := EvaluateFixed(sp, rule, a)
					evals++
					if v >= best.Value {
						break
					}
					best.A, best.Value, improved = a, v, true
				}
			}
		}
	}
	return best, evals
}
