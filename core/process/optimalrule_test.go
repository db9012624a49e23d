package process

import (
	"math"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/kernels"
)

// runOptimal runs trials of a process's direct stepper from empty bins,
// trial i on kernels.TrialStream(seed, i, LaneChoices), and returns the
// mean maximum load and its standard error.
func runOptimal(t *testing.T, p Direct, n, m uint64, trials int) (mean, se float64) {
	t.Helper()
	var sum, sq float64
	loads := make([]uint32, n)
	for i := range trials {
		r := kernels.TrialStream(7, uint64(i), kernels.LaneChoices)
		st := p.Direct32(&Trial{Seed: 7, Index: uint64(i), Bins: n, Balls: m, Choices: &r})
		clear(loads)
		var top uint32
		for done := uint64(0); done < m; {
			c, mx := st.Step(loads, done, m-done, top)
			done, top = done+c, mx
		}
		x := float64(top)
		sum, sq = sum+x, sq+x*x
	}
	mean = sum / float64(trials)
	return mean, math.Sqrt((sq/float64(trials) - mean*mean) / float64(trials-1))
}

// --threshold optimal and --thresholds optimal run the DP's table: the
// simulated mean maximum load (fixed seed) is within 4 standard errors of
// the DP's exact value, and a fixed threshold's is not (so the check can
// fail).
func TestOptimalThresholdsRunTheDP(t *testing.T) {
	for _, c := range []struct {
		p      Process
		params map[string]string
		n, m   uint64
		k      int
	}{
		{&TwoThinning{}, map[string]string{"threshold": "optimal"}, 5, 5, 2},
		{&KThinning{}, map[string]string{"k": "3", "thresholds": "optimal"}, 4, 8, 3},
	} {
		if err := Apply(c.p, c.params, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.p.Check(&Setup{Bins: c.n, Balls: c.m}); err != nil {
			t.Fatal(err)
		}
		sp, _ := optimal.NewSpace(int(c.n), int(c.m))
		want, _, _ := optimal.Solve(sp, c.k, false)
		mean, se := runOptimal(t, c.p.(Direct), c.n, c.m, 20000)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("%v: simulated %.4f ± %.4f, DP %.4f", c.params, mean, se, want)
		}
		fixed := &TwoThinning{Threshold: 3}
		if err := fixed.Check(&Setup{Bins: c.n, Balls: c.m}); err != nil {
			t.Fatal(err)
		}
		if far, _ := runOptimal(t, fixed, c.n, c.m, 20000); math.Abs(far-want) < 10*se {
			t.Errorf("%v: θ = 3 gives %.4f, too close to the optimum %.4f for the check to have power", c.params, far, want)
		}
	}
}

// The optimal settings refuse, in one line naming the flag, what the table
// is not built for: batches, delays, sizes whose states do not fit,
// --initial, balls that leave; the histogram engine runs it (its law is
// the process table's, optimal_table_test.go).
func TestOptimalThresholdsRefuse(t *testing.T) {
	for _, c := range []struct {
		p      Process
		params map[string]string
		su     Setup
		want   string
	}{
		{&TwoThinning{}, map[string]string{"threshold": "optimal", "batch": "4"}, Setup{Bins: 4, Balls: 8}, "--batch"},
		{&TwoThinning{}, map[string]string{"threshold": "optimal", "tau": "2"}, Setup{Bins: 4, Balls: 8}, "--tau"},
		{&TwoThinning{}, map[string]string{"threshold": "optimal"}, Setup{Bins: 120, Balls: 120}, "--threshold optimal: --bins 120 --balls 120"},
		{&KThinning{}, map[string]string{"k": "3", "thresholds": "optimal"}, Setup{Bins: 200, Balls: 1 << 20}, "--thresholds optimal"},
		{&TwoThinning{}, map[string]string{"threshold": "optimal x"}, Setup{Bins: 4, Balls: 8}, "--threshold"},
	} {
		err := Apply(c.p, c.params, nil)
		if err == nil {
			err = c.p.Check(&c.su)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v on %+v: %v, want one line with %q", c.params, c.su, err, c.want)
		}
	}
	two, k := &TwoThinning{Optimal: true}, &KThinning{K: 3, Thresholds: Thresholds{Optimal: true}}
	for what, why := range map[string]string{
		"two initial": two.InitialWhy(), "k initial": k.InitialWhy(),
	} {
		if !strings.Contains(why, "optimal") {
			t.Errorf("%s: %q does not refuse the optimal table", what, why)
		}
	}
	if why := two.HistogramWhy() + k.HistogramWhy(); why != "" {
		t.Errorf("the optimal table refuses the histogram engine: %q", why)
	}
	if _, why := two.Placement(); !strings.Contains(why, "leave") {
		t.Errorf("two-thinning optimal with balls leaving: %q", why)
	}
	if _, why := k.Placement(); !strings.Contains(why, "leave") {
		t.Errorf("k-thinning optimal with balls leaving: %q", why)
	}
	if _, err := two.Fluid(4, 8); err == nil {
		t.Error("two-thinning optimal has a fluid limit")
	}
}

// core/optimal's relative thresholds are this package's: θ = (a − ½)/n,
// the value balloc optimal prints, gives Thinning's limit ⌈(t + a)/n⌉ for
// every ball, so the best fixed θ it reports is the policy --threshold θ
// runs.
func TestOptimalThetaIsThinnings(t *testing.T) {
	for _, n := range []int{1, 3, 5, 20, 25, 50} {
		for a := -2*n - 3; a <= 4*n+3; a++ {
			f := optimal.Fixed{Rule: optimal.Relative, N: n, A: []int{a}}
			th := NewThinning(uint64(n), f.Theta(0))
			for u := 0; u < 3*n+10; u++ {
				limit, _ := th.At(uint64(u))
				want := max(0, int(math.Ceil(float64(u+a)/float64(n))))
				if int(limit) != want {
					t.Fatalf("n=%d a=%d t=%d: Thinning's limit %d, core/optimal's %d", n, a, u, limit, want)
				}
			}
		}
	}
}
