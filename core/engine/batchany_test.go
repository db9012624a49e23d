package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// --batch b for k-thinning, threshold, adaptive, twinning, packing and
// kd-choice (core/process/batch.go and each process's file): the engine's runs from --initial
// against literal batched rules ball for ball (max_gap at batch ends too),
// --batch 1 as the process, the reductions to d-choice's and
// two-thinning's batches, and the exact law of the load vector for n = 3
// with batches of 2 and 3, each with a power check against the unbatched
// process.

// batchRule is a process's rule in batches, from its definition: the bins
// of the next step's balls, in order, given the frozen loads and the balls
// w placed at the batch's start (--initial's counted), drawing from r.
type batchRule func(frozen []uint64, w uint64, r *kernels.PCG32) []uint32

// literalBatched runs rule ball by ball from start: the frozen copy is
// taken where a batch starts, a step is decided when no ball is owed; it
// returns the loads and the largest gap at a batch end or the end.
func literalBatched(start []uint64, b, m uint64, r *kernels.PCG32, rule batchRule) ([]uint64, float64) {
	n := uint64(len(start))
	loads, frozen := slices.Clone(start), slices.Clone(start)
	w0 := uint64(0)
	for _, x := range start {
		w0 += x
	}
	gap := func(t uint64) float64 { return float64(slices.Max(loads)) - float64(w0+t)/float64(n) }
	var owed []uint32
	best := math.Inf(-1)
	for t := uint64(0); t < m; t++ {
		if t%b == 0 {
			copy(frozen, loads)
		}
		if len(owed) == 0 {
			owed = rule(frozen, w0+t-t%b, r)
		}
		loads[owed[0]]++
		owed = owed[1:]
		if (t+1)%b == 0 {
			best = max(best, gap(t+1))
		}
	}
	return loads, max(best, gap(m))
}

func kThinningRule(n int, thetaN []int64) batchRule { // sample kept when n·x < w + nθ
	return func(fr []uint64, w uint64, r *kernels.PCG32) []uint32 {
		i := r.Bounded(uint32(n))
		for _, tn := range thetaN {
			if int64(n)*int64(fr[i]) < int64(w)+tn {
				break
			}
			i = r.Bounded(uint32(n))
		}
		return []uint32{i}
	}
}

func kThinningQuantileRule(n, k int) batchRule {
	idx := make([]int, k-1)
	for j := range idx { // ⌊n(1 − 2^(−1/c))⌋, c = K − j + 1 choices left (exact for these n)
		idx[j] = int(float64(n) * (1 - math.Pow(2, -1/float64(k-j))))
	}
	return func(fr []uint64, _ uint64, r *kernels.PCG32) []uint32 {
		sorted := slices.Clone(fr)
		slices.Sort(sorted)
		i := r.Bounded(uint32(n))
		for _, p := range idx {
			if fr[i] <= sorted[p] {
				break
			}
			i = r.Bounded(uint32(n))
		}
		return []uint32{i}
	}
}

// retryRule: threshold's limit ⌈w_end/n⌉ + 1 (w_end = W0 + m) when fixed,
// else adaptive's for the batch's first ball i = w + 1: x < i/n + 1.
func retryRule(n int, fixed uint64, adaptive bool) batchRule {
	return func(fr []uint64, w uint64, r *kernels.PCG32) []uint32 {
		for {
			i := r.Bounded(uint32(n))
			if (adaptive && uint64(n)*fr[i] < w+1+uint64(n)) || (!adaptive && fr[i] < fixed) {
				return []uint32{i}
			}
		}
	}
}

func twinningRule(n int, packing bool) batchRule {
	return func(fr []uint64, w uint64, r *kernels.PCG32) []uint32 {
		i := r.Bounded(uint32(n))
		a := uint64(1)
		if x := fr[i]; x*uint64(n) < w {
			a = 2
			if packing {
				a = (w+uint64(n)-1)/uint64(n) + 1 - x
			}
		}
		return slices.Repeat([]uint32{i}, int(a))
	}
}

func kdRule(n, k, d int) batchRule {
	return func(fr []uint64, _ uint64, r *kernels.PCG32) []uint32 {
		slots := make([]uint32, d)
		for j := range slots {
			slots[j] = r.Bounded(uint32(n))
		}
		slices.SortStableFunc(slots, func(a, b uint32) int { return int(fr[a]) - int(fr[b]) })
		return slots[:k]
	}
}

type batchAnyCase struct {
	process string
	params  map[string]string
	rule    func(n int, w0, m uint64) batchRule
}

func batchAnyCases() []batchAnyCase {
	return []batchAnyCase{
		{"k-thinning", map[string]string{"k": "3", "thresholds": "0.5,1.5"}, func(n int, _, _ uint64) batchRule {
			return kThinningRule(n, []int64{int64(n) / 2, 3 * int64(n) / 2})
		}},
		{"k-thinning", map[string]string{"k": "4", "thresholds": "0,1,-1"}, func(n int, _, _ uint64) batchRule {
			return kThinningRule(n, []int64{0, int64(n), -int64(n)})
		}},
		{"k-thinning", map[string]string{"k": "3", "thresholds": "quantile"}, func(n int, _, _ uint64) batchRule { return kThinningQuantileRule(n, 3) }},
		{"threshold", nil, func(n int, w0, m uint64) batchRule {
			return retryRule(n, (w0+m+uint64(n)-1)/uint64(n)+1, false)
		}},
		{"adaptive", nil, func(n int, _, _ uint64) batchRule { return retryRule(n, 0, true) }},
		{"twinning", nil, func(n int, _, _ uint64) batchRule { return twinningRule(n, false) }},
		{"packing", nil, func(n int, _, _ uint64) batchRule { return twinningRule(n, true) }},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, func(n int, _, _ uint64) batchRule { return kdRule(n, 2, 3) }},
		{"kd-choice", map[string]string{"k": "3", "d": "5"}, func(n int, _, _ uint64) batchRule { return kdRule(n, 3, 5) }},
		{"kd-choice", map[string]string{"k": "1", "d": "3"}, func(n int, _, _ uint64) batchRule { return kdRule(n, 1, 3) }},
	}
}

func withParams(p map[string]string, kv ...string) map[string]string {
	q := map[string]string{}
	for k, v := range p {
		q[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		q[kv[i]] = kv[i+1]
	}
	return q
}

// The engine's batched runs from --initial against the literal rules,
// ball for ball (the trial's choice stream), with batches below n (the
// pending list) and above it (whole copies); max_gap is the largest gap
// at a batch end or the end.
func TestBatchAnyBallForBall(t *testing.T) {
	const n, m = 8, 600
	start := []uint64{6, 0, 2, 0, 0, 1, 0, 3}
	file := writeTemp(t, "initial.txt", "6\n0\n2\n0\n0\n1\n0\n3\n")
	w0 := uint64(12)
	for ci, c := range batchAnyCases() {
		for _, b := range []uint64{3, 20} {
			name := fmt.Sprintf("%s%v/b=%d", c.process, c.params, b)
			seed := uint64(20 + ci)
			s := mustSpec(t, c.process, withParams(c.params, "batch", fmt.Sprint(b), "initial", "file:"+file),
				core.Common{Bins: n, Balls: m, Seed: seed, KeepLoads: true})
			res := RunTrial(s, 0, nil)
			r := kernels.TrialStream(seed, 0, kernels.LaneChoices)
			loads, gap := literalBatched(start, b, m, &r, c.rule(n, w0, m))
			for i := range loads {
				if res.Loads[i] != float64(loads[i]) {
					t.Fatalf("%s: bin %d holds %v, the literal rule %d (%v)", name, i, res.Loads[i], loads[i], loads)
				}
			}
			if math.Abs(res.MaxGap-gap) > 1e-9 {
				t.Errorf("%s: max_gap %v, the literal rule's at batch ends %v", name, res.MaxGap, gap)
			}
		}
	}
}

// --batch 1 is the process itself, trial for trial (from --initial too);
// kd-choice k = 1 in batches is d-choice's batches and k-thinning K = 2 with
// a threshold two-thinning's.
func TestBatchAnyReductions(t *testing.T) {
	c := core.Common{Bins: 11, Balls: 3000, Trials: 3, Seed: 5, KeepLoads: true, Checkpoints: 3}
	for _, k := range batchAnyCases() {
		for _, init := range []string{"zero", "spike:9"} {
			a := mustSpec(t, k.process, withParams(k.params, "initial", init), c)
			b := mustSpec(t, k.process, withParams(k.params, "batch", "1", "initial", init), c)
			if !sameTrials(t, a, b, 3) {
				t.Errorf("%s%v --initial %s: --batch 1 differs from the process", k.process, k.params, init)
			}
		}
	}
	for _, b := range []string{"2", "7", "40"} {
		kd := mustSpec(t, "kd-choice", map[string]string{"k": "1", "d": "3", "batch": b, "initial": "spike:9"}, c)
		dc := mustSpec(t, "d-choice", map[string]string{"d": "3", "batch": b, "initial": "spike:9"}, c)
		if !sameTrials(t, kd, dc, 3) {
			t.Errorf("--batch %s: kd-choice k=1 d=3 differs from d-choice d=3", b)
		}
		kt := mustSpec(t, "k-thinning", map[string]string{"k": "2", "thresholds": "0.5", "batch": b}, c)
		tt := mustSpec(t, "two-thinning", map[string]string{"threshold": "0.5", "batch": b}, c)
		if !sameTrials(t, kt, tt, 3) {
			t.Errorf("--batch %s: k-thinning K=2 differs from two-thinning", b)
		}
	}
}

// Batches refuse weights, in one line naming --batch, and keep off the
// histogram engine.
func TestBatchAnyRefusals(t *testing.T) {
	for _, k := range batchAnyCases() {
		_, err := core.NewSpec(k.process, withParams(k.params, "batch", "4", "weights", "exp:1"), core.Common{Bins: 8, Balls: 10, Trials: 1, Alpha: 1})
		if err == nil || !strings.Contains(err.Error(), "--batch") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s --batch 4 --weights exp:1: %v", k.process, err)
		}
		_, err = core.NewSpec(k.process, withParams(k.params, "batch", "4"), core.Common{Bins: 8, Balls: 10, Trials: 1, Alpha: 1, Engine: core.EngineHistogram})
		if err == nil || !strings.Contains(err.Error(), "batch") {
			t.Errorf("%s --batch 4 --engine histogram: %v", k.process, err)
		}
	}
}

// stepSeq is one outcome of a step: its balls' bins in order, with its
// probability.
type stepSeq struct {
	bins []int
	p    float64
}

// batchLaw gives a step's outcomes from the frozen loads and the balls w
// placed at the batch's start, ties between equal loads uniformly at random.
type batchLaw func(frozen []int, w int) []stepSeq

// exactBatched propagates the law of (loads, frozen loads, balls owed)
// ball by ball to m balls from empty bins, batches of b.
func exactBatched(n, m, b int, law batchLaw) map[vec]float64 {
	type state struct {
		loads, frozen []int
		owed          []int
	}
	key := func(s state) string { return fmt.Sprint(s.loads, s.frozen, s.owed) }
	cur := map[string]float64{}
	states := map[string]state{}
	s0 := state{make([]int, n), make([]int, n), nil}
	cur[key(s0)], states[key(s0)] = 1, s0
	for t := range m {
		next, nextStates := map[string]float64{}, map[string]state{}
		add := func(s state, p float64) {
			k := key(s)
			next[k] += p
			nextStates[k] = s
		}
		for k, p := range cur {
			s := states[k]
			frozen := s.frozen
			if t%b == 0 {
				frozen = slices.Clone(s.loads)
			}
			outs := []stepSeq{{s.owed, 1}}
			if len(s.owed) == 0 {
				outs = law(frozen, t-t%b)
			}
			for _, o := range outs {
				loads := slices.Clone(s.loads)
				loads[o.bins[0]]++
				add(state{loads, frozen, slices.Clone(o.bins[1:])}, p*o.p)
			}
		}
		cur, states = next, nextStates
	}
	out := map[vec]float64{}
	for k, p := range cur {
		v := make([]byte, n)
		for i, x := range states[k].loads {
			v[i] = byte(x)
		}
		out[vec(v)] += p
	}
	return out
}

// oneBall is a law of single-ball steps from the probability of each bin.
func oneBall(p []float64) []stepSeq {
	out := make([]stepSeq, 0, len(p))
	for i, q := range p {
		if q > 0 {
			out = append(out, stepSeq{[]int{i}, q})
		}
	}
	return out
}

// thinLaw: up to K uniform samples, sample j < K kept when pass(j, load).
func thinLaw(k int, pass func(fr []int, w, j, x int) bool) batchLaw {
	return func(fr []int, w int) []stepSeq {
		n := len(fr)
		p := make([]float64, n)
		reach := 1.0 // the chance of reaching sample j
		for j := range k - 1 {
			rej := 0
			for i, x := range fr {
				if pass(fr, w, j, x) {
					p[i] += reach / float64(n)
				} else {
					rej++
				}
			}
			reach *= float64(rej) / float64(n)
		}
		for i := range p {
			p[i] += reach / float64(n)
		}
		return oneBall(p)
	}
}

// kThinningLaw: θ as a fraction num/den: kept when x < w/n + θ, i.e.
// den·n·x < den·w + num·n.
func kThinningLaw(thetas [][2]int) batchLaw {
	return thinLaw(len(thetas)+1, func(fr []int, w, j, x int) bool {
		n, num, den := len(fr), thetas[j][0], thetas[j][1]
		return den*n*x < den*w+num*n
	})
}

func kThinningQuantileLaw(k int) batchLaw {
	return thinLaw(k, func(fr []int, _, j, x int) bool {
		sorted := slices.Clone(fr)
		slices.Sort(sorted)
		return x <= sorted[int(float64(len(fr))*(1-math.Pow(2, -1/float64(k-j))))]
	})
}

// retryLaw: uniform among the bins whose frozen load passes.
func retryLaw(pass func(n, w, x int) bool) batchLaw {
	return func(fr []int, w int) []stepSeq {
		n := len(fr)
		var ok []int
		for i, x := range fr {
			if pass(n, w, x) {
				ok = append(ok, i)
			}
		}
		p := make([]float64, n)
		for _, i := range ok {
			p[i] = 1 / float64(len(ok))
		}
		return oneBall(p)
	}
}

func twinningLaw(packing bool) batchLaw {
	return func(fr []int, w int) []stepSeq {
		n := len(fr)
		var out []stepSeq
		for i, x := range fr {
			a := 1
			if x*n < w {
				a = 2
				if packing {
					a = (w+n-1)/n + 1 - x
				}
			}
			out = append(out, stepSeq{slices.Repeat([]int{i}, a), 1 / float64(n)})
		}
		return out
	}
}

// kdLaw: every d-tuple (mass n^−d); its slots in ascending frozen load,
// each ordering of tied slots equally likely; the first k take a ball each,
// in that order.
func kdLaw(k, d int) batchLaw {
	return func(fr []int, _ int) []stepSeq {
		n := len(fr)
		var out []stepSeq
		tuple := make([]int, d)
		var rec func(j int)
		rec = func(j int) {
			if j < d {
				for b := range n {
					tuple[j] = b
					rec(j + 1)
				}
				return
			}
			var orders [][]int
			permute(slices.Clone(tuple), 0, func(o []int) {
				if slices.IsSortedFunc(o, func(a, b int) int { return fr[a] - fr[b] }) {
					orders = append(orders, slices.Clone(o[:k]))
				}
			})
			mass := math.Pow(float64(n), -float64(d)) / float64(len(orders))
			for _, o := range orders {
				out = append(out, stepSeq{o, mass})
			}
		}
		rec(0)
		return out
	}
}

// permute calls f with every ordering of the positions of x.
func permute(x []int, i int, f func([]int)) {
	if i == len(x) {
		f(x)
		return
	}
	for j := i; j < len(x); j++ {
		x[i], x[j] = x[j], x[i]
		permute(x, i+1, f)
		x[i], x[j] = x[j], x[i]
	}
}

type batchLawCase struct {
	process string
	params  map[string]string
	n, m, b int
	law     batchLaw
}

func batchLawCases() []batchLawCase {
	adaptive := retryLaw(func(n, w, x int) bool { return n*x < w+1+n })
	return []batchLawCase{
		{"k-thinning", map[string]string{"k": "3", "thresholds": "0,1"}, 3, 7, 2, kThinningLaw([][2]int{{0, 1}, {1, 1}})},
		{"k-thinning", map[string]string{"k": "4", "thresholds": "0,1,-1"}, 3, 7, 3, kThinningLaw([][2]int{{0, 1}, {1, 1}, {-1, 1}})},
		{"k-thinning", map[string]string{"k": "3", "thresholds": "quantile"}, 3, 7, 3, kThinningQuantileLaw(3)},
		{"threshold", nil, 3, 9, 3, retryLaw(func(n, _, x int) bool { return x < 9/n+1 })},
		{"adaptive", nil, 3, 7, 2, adaptive},
		{"adaptive", nil, 3, 8, 3, adaptive},
		{"twinning", nil, 3, 7, 2, twinningLaw(false)},
		{"packing", nil, 3, 8, 3, twinningLaw(true)},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 7, 3, kdLaw(2, 3)},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 8, 4, kdLaw(2, 3)}, // two steps a batch (b = 2 would be the process: one step a batch)
	}
}

func TestBatchAnyMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range batchLawCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d,b=%d", c.process, c.params, c.n, c.m, c.b), func(t *testing.T) {
			law := exactBatched(c.n, c.m, c.b, c.law)
			obs := simulateVectors(t, exactCase{c.process, withParams(c.params, "batch", fmt.Sprint(c.b)), c.n, c.m, nil}, trials, uint64(5000+i))
			exactCheck(t, law, obs, trials)
		})
	}
}

// Power: the batched runs fail the unbatched process's law (b = 1 in the
// same enumeration). Threshold's and adaptive's reach vectors the
// unbatched law gives probability 0 (a frozen load below the limit, the
// current one at it), χ² = +Inf.
func TestBatchAnyExactLawHasPower(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range batchLawCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d,b=%d", c.process, c.params, c.n, c.m, c.b), func(t *testing.T) {
			wrong := exactBatched(c.n, c.m, 1, c.law)
			obs := simulateVectors(t, exactCase{c.process, withParams(c.params, "batch", fmt.Sprint(c.b)), c.n, c.m, nil}, trials, uint64(6000+i))
			stat, limit, df := stattest.Law(wrong, obs, trials)
			t.Logf("χ² = %.1f on %d df against the unbatched law, limit %.1f", stat, df, limit)
			if stat <= limit {
				t.Errorf("passed as the unbatched process: χ² = %.1f ≤ %.1f", stat, limit)
			}
		})
	}
}

// k-thinning --tau T (--delay fixed): every sample's load τ balls old,
// against t/n + θj for the current t, or ranked in the vector of τ balls
// ago. The engine against the literal rule ball for ball; --tau 0 is the
// process; K = 2 is two-thinning --tau; other delays, --initial and
// --batch refused in one line.
func TestKThinningDelayBallForBall(t *testing.T) {
	const n, m = 7, 500
	for _, tau := range []uint64{1, 5, 30} {
		for _, quantile := range []bool{false, true} {
			params := map[string]string{"k": "3", "thresholds": "0.5,1", "tau": fmt.Sprint(tau)}
			if quantile {
				params["thresholds"] = "quantile"
			}
			s := mustSpec(t, "k-thinning", params, core.Common{Bins: n, Balls: m, Seed: 3, KeepLoads: true})
			got := RunTrial(s, 0, nil).Loads
			r := kernels.TrialStream(3, 0, kernels.LaneChoices)
			loads := make([]uint64, n)
			var hist []uint32
			qr := kThinningQuantileRule(n, 3)
			for ball := uint64(0); ball < m; ball++ {
				old := make([]uint64, n)
				for _, b := range hist[:ball-min(ball, tau)] {
					old[b]++
				}
				var i uint32
				switch {
				case quantile:
					i = qr(old, ball, &r)[0]
				default: // θ1 = 1/2: 2n·x < 2t + n; θ2 = 1: n·x < t + n
					i = r.Bounded(n)
					if 2*n*old[i] >= 2*ball+n {
						if i = r.Bounded(n); n*old[i] >= ball+n {
							i = r.Bounded(n)
						}
					}
				}
				hist = append(hist, i)
				loads[i]++
			}
			for i := range loads {
				if got[i] != float64(loads[i]) {
					t.Fatalf("τ=%d quantile=%v: bin %d holds %v, the literal rule %d", tau, quantile, i, got[i], loads[i])
				}
			}
		}
	}
	c := core.Common{Bins: 9, Balls: 2000, Trials: 2, Seed: 4, KeepLoads: true, Checkpoints: 3}
	for _, th := range []string{"0.5,1", "quantile"} {
		a := mustSpec(t, "k-thinning", map[string]string{"k": "3", "thresholds": th}, c)
		b := mustSpec(t, "k-thinning", map[string]string{"k": "3", "thresholds": th, "tau": "0"}, c)
		if !sameTrials(t, a, b, 2) {
			t.Errorf("--thresholds %s: --tau 0 differs from the process", th)
		}
	}
	kt := mustSpec(t, "k-thinning", map[string]string{"k": "2", "thresholds": "0.5", "tau": "13"}, c)
	tt := mustSpec(t, "two-thinning", map[string]string{"threshold": "0.5", "tau": "13"}, c)
	if !sameTrials(t, kt, tt, 2) {
		t.Errorf("k-thinning K=2 --tau 13 differs from two-thinning --tau 13")
	}
	for _, bad := range []map[string]string{
		{"tau": "3", "delay": "uniform"},
		{"tau": "3", "batch": "4"},
		{"tau": "3", "initial": "spike:3"},
		{"tau": "3", "weights": "exp:1"},
	} {
		bad["k"], bad["thresholds"] = "3", "0,1"
		_, err := core.NewSpec("k-thinning", bad, core.Common{Bins: 4, Balls: 10, Trials: 1, Alpha: 1})
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("k-thinning %v: %v", bad, err)
		}
	}
}

// kThinningDelayHist: the samples' loads τ balls ago, against t/n + θj
// (θ as num/den) or ranked in that vector (thetas nil, K = k).
func kThinningDelayHist(k int, thetas [][2]int, tau int) histTransition {
	law := kThinningQuantileLaw(k)
	if thetas != nil {
		law = kThinningLaw(thetas)
	}
	return func(hist []int, n int) []float64 {
		t := len(hist)
		p := make([]float64, n)
		for _, o := range law(loadsAfter(hist, n, t-tau), t) {
			p[o.bins[0]] += o.p
		}
		return p
	}
}

func TestKThinningDelayMatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range []struct {
		params   map[string]string
		n, m     int
		law      histTransition
		neighbor histTransition
	}{
		{map[string]string{"k": "3", "thresholds": "0,1", "tau": "2"}, 3, 7, kThinningDelayHist(3, [][2]int{{0, 1}, {1, 1}}, 2), kThinningDelayHist(3, [][2]int{{0, 1}, {1, 1}}, 0)},
		{map[string]string{"k": "3", "thresholds": "quantile", "tau": "3"}, 3, 7, kThinningDelayHist(3, nil, 3), kThinningDelayHist(3, nil, 0)},
	} {
		t.Run(fmt.Sprint(c.params), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{"k-thinning", c.params, c.n, c.m, nil}, trials, uint64(7000+i))
			exactCheck(t, exactLawHist(c.n, c.m, c.law), obs, trials)
			stat, limit, df := stattest.Law(exactLawHist(c.n, c.m, c.neighbor), obs, trials)
			t.Logf("χ² = %.1f on %d df against --tau 0's law, limit %.1f", stat, df, limit)
			if stat <= limit {
				t.Errorf("passed as the undelayed process: χ² = %.1f ≤ %.1f", stat, limit)
			}
		})
	}
}
