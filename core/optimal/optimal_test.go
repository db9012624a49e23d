package optimal

import (
	"math"
	"testing"
)

// bruteOptimal is the optimum by recursion over the full unsorted load
// vector and every sample outcome, nothing sorted or ranked: with c samples
// left, each of the n bins is sampled with probability 1/n; the last sample
// places the ball, an earlier one is kept or rejected, whichever is less.
func bruteOptimal(loads []int, t, m, k int) float64 {
	if t == m {
		return float64(maxOf(loads))
	}
	return bruteSample(loads, t, m, k, k)
}

func bruteSample(loads []int, t, m, k, c int) float64 {
	var sum float64
	var rest float64
	if c > 1 {
		rest = bruteSample(loads, t, m, k, c-1)
	}
	for i := range loads {
		loads[i]++
		keep := bruteOptimal(loads, t+1, m, k)
		loads[i]--
		if c > 1 {
			keep = math.Min(keep, rest)
		}
		sum += keep
	}
	return sum / float64(len(loads))
}

// bruteFixed is a fixed-threshold policy's value by the same recursion.
// Relative: the limit computed in floating point from θj = (a_j − ½)/n,
// sample j keeping a load below ⌈t/n + θj⌉; absolute: below a_j.
func bruteFixed(loads []int, t, m int, rule Rule, a []int) float64 {
	if t == m {
		return float64(maxOf(loads))
	}
	return bruteFixedSample(loads, t, m, rule, a, 0)
}

func bruteFixedSample(loads []int, t, m int, rule Rule, a []int, j int) float64 {
	n := float64(len(loads))
	var sum float64
	for i := range loads {
		if j < len(a) {
			limit := float64(a[j])
			if rule == Relative {
				limit = math.Ceil(float64(t)/n + (float64(a[j])-0.5)/n)
			}
			if float64(loads[i]) >= limit {
				sum += bruteFixedSample(loads, t, m, rule, a, j+1)
				continue
			}
		}
		loads[i]++
		sum += bruteFixed(loads, t+1, m, rule, a)
		loads[i]--
	}
	return sum / n
}

func maxOf(x []int) int {
	top := 0
	for _, v := range x {
		top = max(top, v)
	}
	return top
}

func space(t *testing.T, n, m int) *Space {
	t.Helper()
	sp, err := NewSpace(n, m)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestEstimateCountsTheSpace: the states and moves known before allocating
// are those enumerated, and the levels are the partition numbers.
func TestEstimateCountsTheSpace(t *testing.T) {
	for _, c := range []struct{ n, m int }{{1, 0}, {1, 7}, {2, 9}, {3, 5}, {5, 12}, {12, 5}, {20, 20}} {
		sp := space(t, c.n, c.m)
		sz := Estimate(c.n, c.m, 2)
		if sz.States != sp.States() || sz.Moves != uint64(len(sp.moves)) {
			t.Errorf("n=%d m=%d: estimate %d states %d moves, enumerated %d and %d",
				c.n, c.m, sz.States, sz.Moves, sp.States(), len(sp.moves))
		}
	}
	// p(20) = 627: the dissertation's final states of n = m = 20.
	if got := space(t, 20, 20).Level(20); got != 627 {
		t.Errorf("level 20 of n = 20: %d states, want p(20) = 627", got)
	}
}

// TestMovesAreTheLoads: each state's moves are its distinct loads with
// their multiplicities (summing to n), ascending.
func TestMovesAreTheLoads(t *testing.T) {
	sp := space(t, 4, 7)
	for lv := 0; lv < sp.M; lv++ {
		for s := 0; s < sp.Level(lv); s++ {
			var bins uint32
			var balls uint32
			for i, mv := range sp.MovesOf(lv, s) {
				if i > 0 && mv.Load <= sp.MovesOf(lv, s)[i-1].Load {
					t.Fatalf("level %d state %d: loads not ascending", lv, s)
				}
				bins += mv.Count
				balls += mv.Count * mv.Load
				if int(mv.Next) >= sp.Level(lv+1) {
					t.Fatalf("level %d state %d: successor %d out of level", lv, s, mv.Next)
				}
			}
			if bins != 4 || int(balls) != lv {
				t.Fatalf("level %d state %d: %d bins, %d balls", lv, s, bins, balls)
			}
		}
	}
}

// TestSolveMatchesBruteForce: the DP on sorted, ranked states equals the
// recursion over unsorted vectors and every sample, to 1e-12.
func TestSolveMatchesBruteForce(t *testing.T) {
	for n := 1; n <= 3; n++ {
		for m := 0; m <= 5; m++ {
			sp := space(t, n, m)
			for k := 2; k <= 3; k++ {
				got, _, err := Solve(sp, k, false)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteOptimal(make([]int, n), 0, m, k)
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("n=%d m=%d K=%d: DP %.15f, brute force %.15f", n, m, k, got, want)
				}
			}
		}
	}
	if v, _, _ := Solve(space(t, 1, 6), 3, false); v != 6 {
		t.Errorf("one bin, six balls: %v, want 6", v)
	}
}

// TestFixedMatchesBruteForce: the fixed-threshold evaluation equals the
// brute-force recursion (relative limits from floating-point θ), for K = 2,
// 3 and 4.
func TestFixedMatchesBruteForce(t *testing.T) {
	for _, c := range []struct{ n, m int }{{2, 5}, {3, 5}} {
		sp := space(t, c.n, c.m)
		for _, rule := range []Rule{Relative, Absolute} {
			for _, a := range [][]int{{-4}, {0}, {1}, {2}, {4}, {9}, {0, 2}, {2, 0}, {1, 1}, {-1, 3}, {1, 2, 3}} {
				got := EvaluateFixed(sp, rule, a)
				want := bruteFixed(make([]int, c.n), 0, c.m, rule, a)
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("n=%d m=%d %v a=%v: DP %.15f, brute force %.15f", c.n, c.m, rule, a, got, want)
				}
			}
		}
	}
}

// TestManyIsEachAlone: policies evaluated together give each one's value
// alone, to the bit.
func TestManyIsEachAlone(t *testing.T) {
	sp := space(t, 4, 7)
	as := [][]int{{-3, 0}, {0, 1}, {1, 1}, {2, 5}, {9, -1}}
	for _, rule := range []Rule{Relative, Absolute} {
		for i, v := range EvaluateFixedMany(sp, rule, as) {
			if alone := EvaluateFixedMany(sp, rule, as[i:i+1])[0]; v != alone {
				t.Errorf("%v a=%v: %v together, %v alone", rule, as[i], v, alone)
			}
		}
	}
}

// TestAbsoluteIsRelativeForOneBin: with n = 1 the relative limit
// ⌈t + a⌉ = t + a and a sample's load is t, so relative a ≥ 1 keeps all,
// as absolute L = m does.
func TestAbsoluteIsRelativeForOneBin(t *testing.T) {
	sp := space(t, 1, 4)
	if r, a := EvaluateFixed(sp, Relative, []int{1}), EvaluateFixed(sp, Absolute, []int{4}); r != 4 || a != 4 {
		t.Errorf("one bin: %v and %v, want 4", r, a)
	}
}

// TestOptimumBelowEveryFixedPolicy: the optimum is at most every policy of
// the full grid, relative and absolute, and some policy is strictly worse.
func TestOptimumBelowEveryFixedPolicy(t *testing.T) {
	sp := space(t, 4, 6)
	for k := 2; k <= 3; k++ {
		opt, _, _ := Solve(sp, k, false)
		worse := false
		for _, rule := range []Rule{Relative, Absolute} {
			r := FullRange(rule, sp.N, sp.M)
			a := make([]int, k-1)
			for a[0] = r.Lo; a[0] <= r.Hi; a[0]++ {
				for x := r.Lo; x <= r.Hi; x++ {
					if k == 3 {
						a[1] = x
					}
					v := EvaluateFixed(sp, rule, a)
					if v < opt-1e-12 {
						t.Fatalf("K=%d %v a=%v: %.15f below the optimum %.15f", k, rule, a, v, opt)
					}
					worse = worse || v > opt+1e-3
					if k == 2 {
						break
					}
				}
			}
		}
		if !worse {
			t.Errorf("K=%d: no fixed policy worse than the optimum", k)
		}
		best, _ := BestFixed(sp, k, Relative, FullRange(Relative, sp.N, sp.M))
		if best.Value < opt-1e-12 {
			t.Errorf("K=%d: best fixed %v below the optimum %v", k, best.Value, opt)
		}
	}
}

// wrongDP is Solve with a deliberate mistake, to show the brute-force test
// can fail: equal weights for the distinct loads (multiplicities
// forgotten), or one sample too few (the forced K-th sample forgotten).
func wrongDP(sp *Space, k int, mistake string) float64 {
	next := append([]float64(nil), sp.final...)
	for t := sp.M - 1; t >= 0; t-- {
		cur := make([]float64, sp.Level(t))
		for s := range cur {
			moves := sp.MovesOf(t, s)
			weight := func(mv Move) float64 { return float64(mv.Count) / float64(sp.N) }
			rounds := k
			if mistake == "multiplicity" {
				weight = func(Move) float64 { return 1 / float64(len(moves)) }
			} else {
				rounds = k - 1
			}
			var u float64
			for _, mv := range moves {
				u += weight(mv) * next[mv.Next]
			}
			for c := 2; c <= rounds; c++ {
				var sum float64
				for _, mv := range moves {
					sum += weight(mv) * math.Min(next[mv.Next], u)
				}
				u = sum
			}
			cur[s] = u
		}
		next = cur
	}
	return next[0]
}

// TestWrongDPFails: each mistake differs from the brute force by far more
// than the 1e-12 tolerance.
func TestWrongDPFails(t *testing.T) {
	sp := space(t, 3, 4)
	for _, k := range []int{2, 3} {
		want := bruteOptimal(make([]int, 3), 0, 4, k)
		for _, mistake := range []string{"multiplicity", "forced"} {
			if got := wrongDP(sp, k, mistake); math.Abs(got-want) < 1e-6 {
				t.Errorf("K=%d: the %s mistake gives %.15f, brute force %.15f: the check has no power", k, mistake, got, want)
			}
		}
	}
}

// TestSimulatedMeanMatchesDP: the policy read from the table, run ball by
// ball with a fixed seed, has a mean maximum load within 4 standard errors
// of the DP's exact value; and a run of the wrong table (keep nothing, so
// one-choice) is far outside.
func TestSimulatedMeanMatchesDP(t *testing.T) {
	for _, c := range []struct{ n, m, k, trials int }{{5, 5, 2, 20000}, {4, 8, 3, 20000}} {
		sp := space(t, c.n, c.m)
		v, pol, err := Solve(sp, c.k, true)
		if err != nil {
			t.Fatal(err)
		}
		mean, se := pol.Simulate(1, c.trials)
		if math.Abs(mean-v) > 4*se {
			t.Errorf("n=%d m=%d K=%d: simulated %.4f ± %.4f, DP %.4f", c.n, c.m, c.k, mean, se, v)
		}
		clear(pol.masks) // reject every sample: the last one places the ball
		wrong, _ := pol.Simulate(1, c.trials)
		if math.Abs(wrong-v) < 10*se {
			t.Errorf("n=%d m=%d K=%d: a table that rejects all gives %.4f, too close to %.4f", c.n, c.m, c.k, wrong, v)
		}
	}
}

// TestPolicyKeepsWhatTheValueSays: at every state of a small space, the
// table keeps exactly the loads whose successor value is at most the value
// of going on (recomputed here), and with more samples left it keeps no
// more (a rejection leaves a better or equal continuation to compare to).
func TestPolicyKeepsWhatTheValueSays(t *testing.T) {
	sp := space(t, 3, 5)
	_, pol, _ := Solve(sp, 3, true)
	values := levelValues(sp, 3)
	for lv := 0; lv < sp.M; lv++ {
		for s := 0; s < sp.Level(lv); s++ {
			moves := sp.MovesOf(lv, s)
			var u1 float64
			for _, mv := range moves {
				u1 += float64(mv.Count) * values[lv+1][mv.Next] / 3
			}
			for i, mv := range moves {
				want := values[lv+1][mv.Next] <= u1
				if pol.Keep(lv, s, i, 2) != want {
					t.Fatalf("level %d state %d move %d, 2 left: keep %v, want %v", lv, s, i, !want, want)
				}
				if pol.Keep(lv, s, i, 3) && !pol.Keep(lv, s, i, 2) {
					t.Fatalf("level %d state %d move %d: kept with 3 left, rejected with 2", lv, s, i)
				}
			}
		}
	}
}

// levelValues is every level's optimal values, by Solve on truncated
// copies: a value of level t is the optimum from that state.
func levelValues(sp *Space, k int) [][]float64 {
	vals := make([][]float64, sp.M+1)
	vals[sp.M] = sp.final
	for t := sp.M - 1; t >= 0; t-- {
		vals[t] = make([]float64, sp.Level(t))
		for s := range vals[t] {
			vals[t][s] = optimalAt(sp.MovesOf(t, s), vals[t+1], float64(sp.N), k, nil, make([]float64, maxMoves))
		}
	}
	return vals
}

func TestFitsRefusesInOneLine(t *testing.T) {
	for _, c := range []struct{ n, m, k int }{{0, 5, 2}, {5, -1, 2}, {5, 5, 1}, {5, 5, 65}, {400, 400, 2}, {120, 120, 2}} {
		_, err := Fits(c.n, c.m, c.k, false)
		if err == nil {
			t.Errorf("%+v accepted", c)
			continue
		}
		if msg := err.Error(); len(msg) == 0 || msg[len(msg)-1] == '\n' || containsNewline(msg) {
			t.Errorf("%+v: %q is not one line", c, msg)
		}
	}
	if _, err := Fits(20, 20, 3, true); err != nil {
		t.Errorf("n = m = 20 refused: %v", err)
	}
}

func containsNewline(s string) bool {
	for _, r := range s {
		if r == '\n' {
			return true
		}
	}
	return false
}

// TestRejectAllIsOneChoice: a = −(m − 1) rejects every first sample, so the
// ball goes to one uniform bin: n = m = 3 has E[max] = (1·3! + 2·18 + 3·3)/27
// (all distinct, one pair, all three alike).
func TestRejectAllIsOneChoice(t *testing.T) {
	if got, want := EvaluateFixed(space(t, 3, 3), Relative, []int{-2}), 51.0/27; math.Abs(got-want) > 1e-12 {
		t.Errorf("one-choice n = m = 3: %.15f, want %.15f", got, want)
	}
}

// BestFixed's descent for K > 2 ends where no single threshold moved by
// one or two classes lowers the value, and on the tiny grids here it finds
// the best of every policy of the grid (searched exhaustively).
func TestBestFixedDescent(t *testing.T) {
	for _, c := range []struct{ n, m, k int }{{3, 5, 3}, {4, 6, 3}, {3, 6, 4}} {
		sp, err := NewSpace(c.n, c.m)
		if err != nil {
			t.Fatal(err)
		}
		r := FullRange(Relative, c.n, c.m)
		best, _ := BestFixed(sp, c.k, Relative, r)
		for j := range best.A {
			for _, s := range []int{-2, -1, 1, 2} {
				a := append([]int(nil), best.A...)
				if a[j] += s; a[j] < r.Lo || a[j] > r.Hi {
					continue
				}
				if v := EvaluateFixed(sp, Relative, a); v < best.Value {
					t.Errorf("n=%d m=%d K=%d: %v gives %.12f, below the search's %v at %.12f", c.n, c.m, c.k, a, v, best.A, best.Value)
				}
			}
		}
		global := math.Inf(1)
		a := make([]int, c.k-1)
		var walk func(j int)
		walk = func(j int) {
			if j == len(a) {
				global = min(global, EvaluateFixed(sp, Relative, a))
				return
			}
			for a[j] = r.Lo; a[j] <= r.Hi; a[j]++ {
				walk(j + 1)
			}
		}
		walk(0)
		if best.Value != global {
			t.Errorf("n=%d m=%d K=%d: the search's %.12f, the grid's best %.12f", c.n, c.m, c.k, best.Value, global)
		}
	}
}
