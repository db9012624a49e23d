package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
)

// Reductions proved ball for ball, on the same seed (the bins are drawn from
// the same stream):
//   - idea with estimates frozen at the true average (--variant oracle) and
//     γ = 1 is d-choice, unit and weighted (for d = 2 at n > 2^16, since
//     below it idea draws a round's two bins from one output);
//   - idea with d = 1 and γ = 1 is one-choice, whatever the variant;
//   - idea --variant oracle with d = 1 and γ = 2 is two-thinning with
//     θ = 1/(2n): the first bin is kept iff its load ≤ ⌊t/n⌋, i.e. load <
//     ⌈t/n + θ⌉ for any 0 < θ ≤ 1/n;
//   - d-choice and idea (numbered, oracle) on vectors with every dimension
//     populated (f = D) are the scalar processes, each coordinate equal to
//     the scalar load.
func TestIdeaReductions(t *testing.T) {
	c := core.Common{Bins: 300, Balls: 30000, Seed: 5}
	for _, w := range []string{"unit", "exp:1", "uniform:0.5,2", "pareto:3"} {
		for _, d := range []string{"1", "2", "3"} {
			c := c
			if d == "2" {
				c.Bins, c.Balls = 1<<16+3, 3000
			}
			dc := loadsOf(t, "d-choice", map[string]string{"d": d, "weights": w}, c, 1)
			id := loadsOf(t, "idea", map[string]string{"d": d, "retries": "1", "variant": "oracle", "weights": w}, c, 1)
			if !slices.Equal(dc, id) {
				t.Errorf("weights %s d=%s: idea --variant oracle --retries 1 differs from d-choice", w, d)
			}
		}
	}
	one := loadsOf(t, "one-choice", nil, c, 2)
	for _, v := range []string{"numbered", "sampling", "oracle"} {
		if got := loadsOf(t, "idea", map[string]string{"d": "1", "retries": "1", "variant": v}, c, 2); !slices.Equal(got, one) {
			t.Errorf("idea d=1 γ=1 --variant %s differs from one-choice", v)
		}
	}
	theta := fmt.Sprint(0.5 / float64(c.Bins))
	thin := loadsOf(t, "two-thinning", map[string]string{"threshold": theta}, c, 3)
	if got := loadsOf(t, "idea", map[string]string{"d": "1", "retries": "2", "variant": "oracle"}, c, 3); !slices.Equal(got, thin) {
		t.Errorf("idea --variant oracle d=1 γ=2 differs from two-thinning θ = 1/(2n)")
	}
	for _, p := range []struct {
		process string
		params  map[string]string
	}{
		{"d-choice", map[string]string{"d": "2"}},
		{"d-choice", map[string]string{"d": "3", "weights": "exp:2"}},
		{"idea", map[string]string{"d": "2", "variant": "numbered"}},
		{"idea", map[string]string{"d": "3", "variant": "oracle", "retries": "3"}},
		{"idea", map[string]string{"d": "2", "variant": "numbered", "weights": "uniform:0,1"}},
	} {
		scalar := loadsOf(t, p.process, p.params, c, 4)
		vp := map[string]string{"dims": "3", "populated": "3"}
		for k, v := range p.params {
			vp[k] = v
		}
		if strings.Contains(p.params["weights"], ":") {
			continue // a vector ball draws one weight per dimension: not the scalar ball
		}
		vec := loadsOf(t, p.process, vp, c, 4)
		for i, x := range scalar {
			if vec[3*i] != x || vec[3*i+1] != x || vec[3*i+2] != x {
				t.Fatalf("%s %v: vector bin %d %v, scalar load %v", p.process, p.params, i, vec[3*i:3*i+3], x)
			}
		}
	}
}

// The reported statistics are consistent: the rounds histogram counts every
// ball, its mean and maximum are the reported ones, and the lag is the held
// increments' share (t/n − mean Â = held/(d·n) for unit balls).
func TestIdeaStatistics(t *testing.T) {
	c := core.Common{Bins: 200, Balls: 20000, Seed: 9}
	for _, params := range []map[string]string{
		{"d": "2"}, {"d": "3", "variant": "sampling"}, {"d": "2", "variant": "oracle", "retries": "4"},
		{"d": "2", "dims": "4", "populated": "2"}, {"d": "2", "weights": "exp:1"},
	} {
		s := mustSpec(t, "idea", params, c)
		r := RunTrial(s, 0, nil)
		total, sum := uint64(0), 0.0
		for _, l := range r.Retries().Hist {
			total += l.Count
			sum += l.Load * float64(l.Count)
		}
		if total != c.Balls || math.Abs(sum/float64(total)-r.Retries().Mean) > 1e-12 || uint64(r.Retries().Hist[len(r.Retries().Hist)-1].Load) != r.Retries().Max {
			t.Errorf("%v: rounds histogram %v disagrees with mean %v, max %d", params, r.Retries().Hist, r.Retries().Mean, r.Retries().Max)
		}
		if r.Retries().Max > uint64(s.ParamsMap()["retries"].(int)) || r.Retries().Fallbacks > r.Retries().Hist[len(r.Retries().Hist)-1].Count {
			t.Errorf("%v: more rounds than γ, or fallbacks beyond the balls that took γ rounds", params)
		}
		switch {
		case params["variant"] == "oracle":
			if r.Estimates() != nil {
				t.Errorf("oracle reported estimates")
			}
		case params["weights"] == "" && params["dims"] == "":
			want := float64(r.Estimates().Held) / float64(s.ParamsMap()["d"].(int)) / float64(c.Bins)
			if math.Abs(r.Estimates().Lag-want) > 1e-9 {
				t.Errorf("%v: lag %v, want held/(d·n) = %v", params, r.Estimates().Lag, want)
			}
		}
	}
}

// Trials are pure functions of (spec, seed, trial): rerunning one gives the
// same result, and trials differ from each other.
func TestIdeaTrialsReproducible(t *testing.T) {
	c := core.Common{Bins: 100, Balls: 5000, Seed: 3}
	for _, params := range []map[string]string{
		{"variant": "sampling"}, {"dims": "8", "populated": "2", "weights": "exp:1"},
	} {
		a := loadsOf(t, "idea", params, c, 7)
		b := loadsOf(t, "idea", params, c, 7)
		other := loadsOf(t, "idea", params, c, 8)
		if !slices.Equal(a, b) || slices.Equal(a, other) {
			t.Errorf("%v: a trial is not a pure function of its index", params)
		}
	}
}

// Bad parameters are refused by NewSpec, before any work.
func TestIdeaSpecErrors(t *testing.T) {
	c := core.Common{Bins: 10, Balls: 100, Trials: 1}
	for _, e := range []struct {
		process string
		params  map[string]string
		want    string
	}{
		{"idea", map[string]string{"d": "0"}, `--d "0"`},
		{"idea", map[string]string{"d": "11"}, "--d 11 exceeds --bins 10"},
		{"idea", map[string]string{"retries": "0"}, `--retries "0"`},
		{"idea", map[string]string{"variant": "guess"}, `--variant "guess"`},
		{"idea", map[string]string{"sample-size": "4"}, "--sample-size applies to idea --variant sampling only"},
		{"idea", map[string]string{"sample-rule": "rounded", "variant": "numbered"}, "--sample-rule applies"},
		{"idea", map[string]string{"dims": "2", "populated": "3"}, "--populated 3 exceeds --dims 2"},
		{"idea", map[string]string{"dims": "65"}, `--dims "65"`},
		{"idea", map[string]string{"vector-gap": "all"}, "--vector-gap applies to balls of --dims 2 or more"},
		{"idea", map[string]string{"held": "bank"}, `--held "bank": want drop or carry`},
		{"idea", map[string]string{"held": "carry", "variant": "oracle"}, "--held applies to idea --variant numbered or sampling only"},
		{"d-choice", map[string]string{"dims": "4", "populated": "5"}, "--populated 5 exceeds --dims 4"},
		{"d-choice", map[string]string{"weights": "pareto:2"}, "α > 2"},
		{"d-choice", map[string]string{"weights": "uniform:3,1"}, "a ≤ b"},
		{"two-choice", map[string]string{"dims": "2"}, "--dims does not apply to two-choice"},
	} {
		_, err := core.NewSpec(e.process, e.params, c)
		if err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s %v: error %v, want %q", e.process, e.params, err, e.want)
		}
	}
	if _, err := core.NewSpec("d-choice", map[string]string{"dims": "2"}, core.Common{Bins: 10, Balls: 1, Trials: 1, Engine: core.EngineHistogram}); err == nil {
		t.Errorf("--dims ran on the histogram engine")
	}
}

// A multi-dimensional gap is the largest L_ik − avg_k.
func TestMeasureVec(t *testing.T) {
	// Two bins, two dimensions: dimension 0 totals 4 (avg 2), dimension 1
	// totals 1 (avg 0.5).
	s, avgs := measureVec([]float64{3, 1, 1, 0}, 2, 3, 0)
	if avgs[0] != 2 || avgs[1] != 0.5 || s.Gap != 1 || s.Underload != 1 || s.MaxLoad != 3 || s.MinLoad != 0 || s.Quadratic != 2.5 {
		t.Fatalf("measureVec: %+v, averages %v", s, avgs)
	}
}
