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
	return EvaluateFixedMany(sp, rule, [][]int{a})[0]
}

// Batch is how many policies EvaluateFixedMany runs in one pass at most
// (BestFixed's batches; Estimate counts its value buffers).
const Batch = 16

// EvaluateFixedMany is EvaluateFixed for several policies of the same K in
// one backward pass: each state's moves are read once, and the policies'
// values of a state sit side by side (value of policy p at state s:
// s·P + p), so the successors' values of all come in one cache line.
// Every policy's arithmetic is EvaluateFixed's alone, in the same order.
func EvaluateFixedMany(sp *Space, rule Rule, as [][]int) []float64 {
	np, k := len(as), len(as[0])+1
	lims := make([][][]int, np)
	for p, a := range as {
		lims[p] = limits(rule, sp.N, sp.M, a)
	}
	next := make([]float64, len(sp.final)*np)
	for s, v := range sp.final {
		for p := range np {
			next[s*np+p] = v
		}
	}
	cur := make([]float64, len(next))
	below := make([]int, np*(k-1))
	scratch := fixedScratch{sumW: make([]float64, (maxMoves+1)*np), sumC: make([]float64, maxMoves+1), below: make([]int, sp.M+3)}
	for t := sp.M - 1; t >= 0; t-- {
		for p := range np {
			for j := range k - 1 {
				below[p*(k-1)+j] = lims[p][j][t]
			}
		}
		for s := range sp.Level(t) {
			fixedAt(sp.MovesOf(t, s), next, float64(sp.N), below, np, cur[s*np:(s+1)*np], &scratch)
		}
		next, cur = cur, next
	}
	return append([]float64(nil), next[:np]...)
}

// fixedScratch holds fixedAt's prefix sums: sumW[i·P + p] for policy p
// over the first i moves (the policies side by side), and sumC over the
// first i moves; and below[x], the moves whose load is below lo + x (lo
// the state's least load).
type fixedScratch struct {
	sumW, sumC []float64
	below      []int
}

// fixedAt is each policy's U_K at one state, into out: sample j (0-based,
// with K − j samples left) of policy p keeps a load below
// below[p·(K−1) + j]. Moves ascend by load, so the kept ones are a prefix:
// with the prefix sums of c_ℓ·w_ℓ and c_ℓ,
// U = (Σ_kept c_ℓ w_ℓ + (n − Σ_kept c_ℓ)·U_next)/n.
func fixedAt(moves []Move, next []float64, n float64, below []int, np int, out []float64, sc *fixedScratch) {
	sc.sumC[0] = 0
	for i, mv := range moves {
		sc.sumC[i+1] = sc.sumC[i] + float64(mv.Count)
	}
	sumW := sc.sumW[:(len(moves)+1)*np]
	clear(sumW[:np])
	for i, mv := range moves {
		c, vals := float64(mv.Count), next[int(mv.Next)*np:int(mv.Next)*np+np]
		prev, row := sumW[i*np:(i+1)*np], sumW[(i+1)*np:(i+2)*np]
		for p, v := range vals {
			row[p] = prev[p] + c*v
		}
	}
	// The kept prefix of a limit, read from a table over the state's loads
	// (O(moves + load range) a state, shared by the policies), not found
	// by a scan per sample and policy (O(K·moves)), which made K = 10 cost
	// 3× K = 3 a policy.
	lo, span := int(moves[0].Load), int(moves[len(moves)-1].Load-moves[0].Load)+1
	keptAt := sc.below[:span+1]
	for x, i := 0, 0; x <= span; x++ {
		for i < len(moves) && int(moves[i].Load) < lo+x {
			i++
		}
		keptAt[x] = i
	}
	k1 := len(below) / np
	for p := range np {
		u := sumW[len(moves)*np+p] / n
		for j := k1 - 1; j >= 0; j-- {
			kept := len(moves)
			if x := below[p*k1+j] - lo; x <= 0 {
				kept = 0
			} else if x <= span {
				kept = keptAt[x]
			}
			u = (sumW[kept*np+p] + (n-sc.sumC[kept])*u) / n
		}
		out[p] = u
	}
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
// the grid; for K > 2 then a descent from the best common one (found on
// a grid four times coarser, then refined around its best). Each step
// evaluates, in shared passes of Batch policies (EvaluateFixedMany), the
// moves of each a_j alone by ±1 and ±2, then the best improving move of
// every j made together; it takes that joint move if it is the better,
// else the best single move, and stops when no single move lowers the
// value: a local optimum of the grid (no a_j alone moved by up to 2 lowers
// it), not proven global. evals counts the policies evaluated.
func BestFixed(sp *Space, k int, rule Rule, r Range) (best Fixed, evals int) {
	best = Fixed{Rule: rule, N: sp.N, Value: -1}
	// The common thresholds: every one for K = 2 (the whole grid); for
	// K > 2, where they only start the descent, every coarse-th, then the
	// ones around the best of those.
	coarse := 1
	if k > 2 {
		coarse = 4
	}
	try := func(lo, hi, step int) {
		var common [][]int
		for x := max(lo, r.Lo); x <= min(hi, r.Hi); x += step {
			a := make([]int, k-1)
			for j := range a {
				a[j] = x
			}
			common = append(common, a)
		}
		for i, v := range evaluateBatched(sp, rule, common) {
			evals++
			if best.Value < 0 || v < best.Value {
				best.A, best.Value = common[i], v
			}
		}
	}
	try(r.Lo, r.Hi, coarse)
	if coarse > 1 {
		at := best.A[0]
		try(at-coarse+1, at-1, 1)
		try(at+1, at+coarse-1, 1)
	}
	for k > 2 {
		var singles [][]int
		for j := range best.A {
			for _, s := range []int{-2, -1, 1, 2} {
				if x := best.A[j] + s; x >= r.Lo && x <= r.Hi {
					a := append([]int(nil), best.A...)
					a[j] = x
					singles = append(singles, a)
				}
			}
		}
		vals := evaluateBatched(sp, rule, singles)
		evals += len(vals)
		at, joint, jointVal := -1, append([]int(nil), best.A...), make([]float64, len(best.A))
		moves := 0
		for i, v := range vals {
			if v >= best.Value {
				continue
			}
			if at < 0 || v < vals[at] {
				at = i
			}
			j := 0
			for singles[i][j] == best.A[j] {
				j++
			}
			if joint[j] == best.A[j] {
				moves++
			}
			if joint[j] == best.A[j] || v < jointVal[j] {
				joint[j], jointVal[j] = singles[i][j], v
			}
		}
		if at < 0 {
			break
		}
		next, nextVal := singles[at], vals[at]
		if moves >= 2 {
			evals++
			if v := EvaluateFixed(sp, rule, joint); v < nextVal {
				next, nextVal = joint, v
			}
		}
		best.A, best.Value = next, nextVal
	}
	return best, evals
}

// evaluateBatched is EvaluateFixedMany over as in passes of Batch.
func evaluateBatched(sp *Space, rule Rule, as [][]int) []float64 {
	var out []float64
	for lo := 0; lo < len(as); lo += Batch {
		out = append(out, EvaluateFixedMany(sp, rule, as[lo:min(len(as), lo+Batch)])...)
	}
	return out
}
