package engine

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// Stale loads (--update-delay, --update-individual; kernels/stale.go): the
// exact law of the loads after a few events for tiny n, from the models'
// definitions in continuous time, with power against fresh loads; the
// limits T → 0 (draw for draw for the delay, in law for individual
// updates); and the runs' outside (flags refused, a sweep's keys).

// staleVectors runs trials of JSQ(d) on n bins for `events` events with the
// dynamic settings dy (λ, the stale model) and counts the final loads.
func staleVectors(t *testing.T, n, d, events int, dy core.Dynamic, trials int, seed uint64) map[vec]int {
	t.Helper()
	dy.Events = uint64(events)
	s, err := core.NewSpec("d-choice", map[string]string{"d": fmt.Sprint(d)}, core.Common{Bins: uint64(n), Trials: trials, Seed: seed, Alpha: 1, KeepLoads: true, Dynamic: dy})
	if err != nil {
		t.Fatal(err)
	}
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		v := make([]byte, n)
		for i, x := range r.Loads {
			v[i] = byte(x)
		}
		obs[vec(v)]++
	}
	return obs
}

// toInts reads a vec as loads.
func toInts(v vec) []int {
	out := make([]int, len(v))
	for i := range out {
		out[i] = int(v[i])
	}
	return out
}

// individualLaw propagates the law of (loads, board) through events events
// of JSQ(d) with arrival probability a: before each event the refreshes of
// its gap, each point of the merged Poisson processes a refresh of a
// uniform bin with probability q = (n/T)/(n/T + n(1+λ)), so Geometric in
// number (summed until the remaining mass is below 1e-15).
func individualLaw(n, d, events int, a, q float64) map[vec]float64 {
	type state struct{ loads, board vec }
	law := map[state]float64{{vec(make([]byte, n)), vec(make([]byte, n))}: 1}
	for range events {
		after := map[state]float64{}
		cur := law
		for mass := 1.0; mass > 1e-15; {
			next := map[state]float64{}
			mass = 0
			for st, p := range cur {
				after[st] += (1 - q) * p
				for b := range n { // a refresh of bin b
					w := []byte(st.board)
					w[b] = st.loads[b]
					next[state{st.loads, vec(w)}] += q * p / float64(n)
					mass += q * p / float64(n)
				}
			}
			cur = next
		}
		next := map[state]float64{}
		for st, p := range after {
			for b, pb := range dChoiceExact(n, d)(toInts(st.board), 0) {
				if pb > 0 {
					w := []byte(st.loads)
					w[b]++
					next[state{vec(w), st.board}] += p * a * pb
				}
			}
			for b := range n {
				w := []byte(st.loads)
				if w[b] > 0 {
					w[b]--
				}
				next[state{vec(w), st.board}] += p * (1 - a) / float64(n)
			}
		}
		law = next
	}
	out := map[vec]float64{}
	for st, p := range law {
		out[st.loads] += p
	}
	return out
}

// lagLaw is the joint law of the lags of events 1 … E in the continuous
// update model with delay T at event rate r: lag j is the number of events
// before event j within the window, #{k < j : t_j − t_k < T} — those whose
// changes event j does not see (it sees the state after event j − 1 − lag).
// The gaps are i.i.d. Exp(r); in units of 1/r the delay is rT. Lag j is ℓ
// exactly when rT − P_{ℓ+1} ≤ g_j < rT − P_ℓ, P_m the sum of the m − 1
// gaps before g_j; the probability of a pattern of lags is an integral of
// the gaps' density over a polytope, taken gap by gap: the last gap in
// closed form, the others by 16-point Gauss–Legendre on each piece where
// the lag is constant (the rest is smooth there), and the piece g_j ≥ rT,
// where nothing before event j is in any later window, as one point.
func lagLaw(E int, rT float64) map[string]float64 {
	out := map[string]float64{}
	var rec func(j int, gaps []float64, lags []byte, w float64)
	rec = func(j int, gaps []float64, lags []byte, w float64) {
		if j > E {
			out[string(lags)] += w
			return
		}
		P := func(m int) float64 { // sum of the m − 1 gaps before g_j
			s := 0.0
			for k := 1; k < m; k++ {
				s += gaps[len(gaps)-k]
			}
			return s
		}
		for l := 0; l < j; l++ {
			lo, hi := 0.0, math.Inf(1)
			if l+1 <= j-1 {
				lo = math.Max(0, rT-P(l+1))
			}
			if l >= 1 {
				hi = rT - P(l)
			}
			if hi <= lo {
				continue
			}
			lags := append(append([]byte{}, lags...), byte(l))
			switch {
			case j == E:
				out[string(lags)] += w * (math.Exp(-lo) - math.Exp(-hi))
			case math.IsInf(hi, 1):
				rec(j+1, append(append([]float64{}, gaps...), lo+rT), lags, w*math.Exp(-lo))
			default:
				xs, ws := make([]float64, 16), make([]float64, 16) // per call: the recursion reuses none
				quad.Legendre{}.FixedLocations(xs, ws, lo, hi)
				for i, g := range xs {
					rec(j+1, append(append([]float64{}, gaps...), g), lags, w*ws[i]*math.Exp(-g))
				}
			}
		}
	}
	rec(2, nil, []byte{0}, 1) // event 1 has no event before it
	if E == 1 {
		return map[string]float64{"\x00": 1}
	}
	return out
}

// delayLaw is the law of the loads after E events of JSQ(d) in the
// continuous update model: for each pattern of lags, the chain on the
// history of states (event j decides on the state after event j − 1 − lag).
func delayLaw(n, d, E int, a float64, lags map[string]float64) map[vec]float64 {
	out := map[vec]float64{}
	for pattern, pp := range lags {
		// A history: the states after events 0 … j, n bytes each.
		law := map[string]float64{string(make([]byte, n)): pp}
		for j := 1; j <= E; j++ {
			next := map[string]float64{}
			for h, p := range law {
				at := j - 1 - int(pattern[j-1])
				seen := toInts(vec(h[at*n : (at+1)*n]))
				cur := h[(j-1)*n:]
				for b, pb := range dChoiceExact(n, d)(seen, 0) {
					if pb > 0 {
						w := []byte(cur)
						w[b]++
						next[h+string(w)] += p * a * pb
					}
				}
				for b := range n {
					w := []byte(cur)
					if w[b] > 0 {
						w[b]--
					}
					next[h+string(w)] += p * (1 - a) / float64(n)
				}
			}
			law = next
		}
		for h, p := range law {
			out[vec(h[E*n:])] += p
		}
	}
	return out
}

// The quadrature against what is known in closed form: total mass 1, and
// the marginal P(lag j ≥ ℓ) = P(Gamma(ℓ, 1) < rT) = P(Poisson(rT) ≥ ℓ).
func TestLagLawMarginals(t *testing.T) {
	const E, rT = 6, 1.7
	law := lagLaw(E, rT)
	total := 0.0
	for _, p := range law {
		total += p
	}
	if math.Abs(total-1) > 1e-12 {
		t.Fatalf("mass %v", total)
	}
	for j := 2; j <= E; j++ {
		for l := 1; l < j; l++ {
			got := 0.0
			for pat, p := range law {
				if int(pat[j-1]) >= l {
					got += p
				}
			}
			want, term := 1.0, math.Exp(-rT)
			for k := range l {
				want -= term
				term *= rT / float64(k+1)
			}
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("P(lag %d ≥ %d) = %.15f, want %.15f", j, l, got, want)
			}
		}
	}
}

// 40000 trials, 20000 under -short: at a quarter (lawTrials) the lag of
// round(rT) events passed at n = 3, d = 2 (χ² = 86.0 ≤ 87.7), so this test
// keeps half.
func TestDelayMatchesExactLaw(t *testing.T) {
	t.Parallel()
	trials := 40000
	if testing.Short() {
		trials = 20000
	}
	for i, c := range []struct {
		n, d, events int
		lambda, T    float64
	}{
		{2, 2, 6, 0.9, 0.4},
		{3, 2, 5, 0.9, 0.3},
		{3, 3, 5, 0.8, 0.2},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			obs := staleVectors(t, c.n, c.d, c.events, core.Dynamic{ArrivalRate: c.lambda, UpdateDelay: c.T}, trials, uint64(700+i))
			a := c.lambda / (1 + c.lambda)
			rT := float64(c.n) * (1 + c.lambda) * c.T
			stat, limit, df := stattest.Law(delayLaw(c.n, c.d, c.events, a, lagLaw(c.events, rT)), obs, trials)
			t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
			}
			// Power: the same runs fail against fresh loads (every lag 0).
			fresh := map[string]float64{string(make([]byte, c.events)): 1}
			if stat, limit, _ := stattest.Law(delayLaw(c.n, c.d, c.events, a, fresh), obs, trials); stat <= limit {
				t.Errorf("passed as fresh loads: χ² = %.1f ≤ %.1f", stat, limit)
			} else {
				t.Logf("fresh loads: χ² = %.1f > %.1f", stat, limit)
			}
			// And against the delay counted in events, a fixed lag of
			// round(rT) (its expectation) in place of the real times.
			fixed := make([]byte, c.events)
			for j := range fixed {
				fixed[j] = byte(min(j, int(math.Round(rT))))
			}
			if stat, limit, _ := stattest.Law(delayLaw(c.n, c.d, c.events, a, map[string]float64{string(fixed): 1}), obs, trials); stat <= limit {
				t.Errorf("passed as a lag of round(rT) events: χ² = %.1f ≤ %.1f", stat, limit)
			} else {
				t.Logf("a lag of round(rT) = %d events: χ² = %.1f > %.1f", int(math.Round(rT)), stat, limit)
			}
		})
	}
}

func TestIndividualMatchesExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	for i, c := range []struct {
		n, d, events int
		lambda, T    float64
	}{
		{2, 2, 8, 0.9, 0.5},
		{3, 2, 6, 0.9, 1},
		{3, 3, 6, 0.8, 2},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			obs := staleVectors(t, c.n, c.d, c.events, core.Dynamic{ArrivalRate: c.lambda, UpdateIndividual: c.T}, trials, uint64(800+i))
			a := c.lambda / (1 + c.lambda)
			q := 1 / (1 + (1+c.lambda)*c.T)
			stat, limit, df := stattest.Law(individualLaw(c.n, c.d, c.events, a, q), obs, trials)
			t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
			}
			// Power: fresh loads (a refresh of every bin before each event).
			if stat, limit, _ := stattest.Law(boardLaw(c.n, c.d, c.events, 1, a), obs, trials); stat <= limit {
				t.Errorf("passed as fresh loads: χ² = %.1f ≤ %.1f", stat, limit)
			} else {
				t.Logf("fresh loads: χ² = %.1f > %.1f", stat, limit)
			}
		})
	}
}

// A delay shorter than any gap between events is fresh information: the
// event stream is the fresh run's, so the run is the plain supermarket on
// the direct engine draw for draw (at n = 500, λ = 0.9, 1.9·10^4 events at
// gaps of mean 1/950: none within 10^-9 of the one before, with
// probability about 1 − 2·10^-2 for the seed, fixed).
func TestDelayTinyIsFresh(t *testing.T) {
	const n, lambda = 500, 0.9
	com := core.Common{Bins: n, Trials: 1, Seed: 4, Alpha: 1, Engine: core.EngineDirect, KeepLoads: true, Checkpoints: 5,
		Dynamic: core.Dynamic{ArrivalRate: lambda, Time: 20, Warmup: 5}}
	fresh, err := core.NewSpec("two-choice", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	com.Dynamic.UpdateDelay = 1e-9
	delay, err := core.NewSpec("two-choice", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	a, b := RunTrial(fresh, 0, nil), RunTrial(delay, 0, nil)
	da, db := *a.Dynamic, *b.Dynamic
	a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS, a.Params, b.Params, a.Dynamic, b.Dynamic = 0, 0, 0, 0, nil, nil, nil, nil
	if fmt.Sprintf("%+v %+v", *a, da) != fmt.Sprintf("%+v %+v", *b, db) {
		t.Errorf("fresh and a delay of 1e-9 differ:\n%+v %+v\n%+v %+v", *a, da, *b, db)
	}
	com.Dynamic.UpdateDelay = 0.5
	stale, _ := core.NewSpec("two-choice", nil, com)
	if c := RunTrial(stale, 0, nil); c.Dynamic.MeanQueue <= da.MeanQueue {
		t.Errorf("a delay of 0.5 did not lengthen the queues: %v ≤ %v", c.Dynamic.MeanQueue, da.MeanQueue)
	}
}

// Individual updates at small T are fresh loads in law: at T = 10^-3 (about
// 526 refreshes an event) the loads after 8 events pass the fresh law's χ²,
// while T = 0.5 fails it (TestIndividualMatchesExactLaw).
func TestIndividualSmallIsFresh(t *testing.T) {
	const n, d, events, lambda = 2, 2, 8, 0.9
	trials := lawTrials(40000)
	obs := staleVectors(t, n, d, events, core.Dynamic{ArrivalRate: lambda, UpdateIndividual: 1e-3}, trials, 900)
	stat, limit, df := stattest.Law(boardLaw(n, d, events, 1, lambda/(1+lambda)), obs, trials)
	t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
	if stat > limit {
		t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
	}
}
