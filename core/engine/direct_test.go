package engine

import (
	"encoding/json"
	"flag"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/kernels"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.jsonl from this build")

func TestCheckpointsOf(t *testing.T) {
	for _, c := range []struct {
		m, k uint64
		want []uint64
	}{
		{10, 0, []uint64{10}}, {10, 1, []uint64{10}}, {10, 3, []uint64{3, 6, 10}},
		{0, 0, []uint64{0}}, {5, 5, []uint64{1, 2, 3, 4, 5}},
		{1 << 63, 2, []uint64{1 << 62, 1 << 63}},
	} {
		if got := checkpointsOf(c.m, c.k); !slices.Equal(got, c.want) {
			t.Errorf("checkpointsOf(%d, %d) = %v, want %v", c.m, c.k, got, c.want)
		}
	}
}

// refTwoThinning is the process written out ball by ball: the threshold is
// recomputed for every ball, exactly.
func refTwoThinning(n, m uint64, theta float64, seed uint64) []uint64 {
	loads := make([]uint64, n)
	r := kernels.TrialStream(seed, 0, kernels.LaneChoices)
	th := new(big.Rat).SetFloat64(theta)
	for t := uint64(0); t < m; t++ {
		i := r.Bounded(uint32(n))
		x := new(big.Rat).Add(new(big.Rat).SetFrac(new(big.Int).SetUint64(t), new(big.Int).SetUint64(n)), th)
		if new(big.Rat).SetInt(new(big.Int).SetUint64(loads[i])).Cmp(x) >= 0 {
			i = r.Bounded(uint32(n))
		}
		loads[i]++
	}
	return loads
}

func TestTwoThinningEngineMatchesBallByBall(t *testing.T) {
	for _, c := range []struct {
		n, m  uint64
		theta float64
	}{{10, 5000, 0.5}, {7, 3000, 1.0 / 3}, {100, 20000, 0}, {50, 10000, 2}, {13, 4000, -0.75}} {
		s := mustSpec(t, "two-thinning", map[string]string{"threshold": fmtFloat(c.theta)},
			core.Common{Bins: c.n, Balls: c.m, Seed: 77, KeepLoads: true, Checkpoints: 7})
		got := RunTrial(s, 0, nil).Loads
		want := refTwoThinning(c.n, c.m, c.theta, 77)
		for i := range want {
			if got[i] != float64(want[i]) {
				t.Fatalf("n=%d θ=%v: bin %d holds %v, ball-by-ball reference %d", c.n, c.theta, i, got[i], want[i])
			}
		}
	}
}

func fmtFloat(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// Degenerate parameters are run by the loop of the process they equal, and
// give the same loads for the same seed.
func TestDegenerateParametersEqualTheirProcess(t *testing.T) {
	run := func(p string, params map[string]string) []float64 {
		s := mustSpec(t, p, params, core.Common{Bins: 1000, Balls: 100000, Seed: 4, KeepLoads: true})
		return RunTrial(s, 3, nil).Loads
	}
	one, two := run("one-choice", nil), run("two-choice", nil)
	for name, c := range map[string]struct {
		got, want []float64
	}{
		"d-choice d=1":        {run("d-choice", map[string]string{"d": "1"}), one},
		"one-plus-beta β=0":   {run("one-plus-beta", map[string]string{"beta": "0"}), one},
		"one-plus-beta β=1":   {run("one-plus-beta", map[string]string{"beta": "1"}), two},
		"always-go-left d=1":  {run("always-go-left", map[string]string{"d": "1"}), one},
		"d-choice d=2":        {run("d-choice", map[string]string{"d": "2"}), two},
		"two-thinning θ=-1e9": {run("two-thinning", map[string]string{"threshold": "-1e9"}), nil},
	} {
		if c.want != nil && !slices.Equal(c.got, c.want) {
			t.Errorf("%s differs from its process for the same seed", name)
		}
	}
	// Constant weights are the unit process scaled, and random weights choose
	// bins from the same stream: exp weights with d-choice and exp weights
	// scaled by λ are the same run scaled.
	scaled := run("two-choice", map[string]string{"weights": "const:0.25"})
	for i := range scaled {
		if scaled[i] != two[i]*0.25 {
			t.Fatalf("const:0.25 weights: bin %d holds %v, want %v", i, scaled[i], two[i]*0.25)
		}
	}
	e1 := run("two-choice", map[string]string{"weights": "exp:1"})
	e2 := run("two-choice", map[string]string{"weights": "exp:2"})
	for i := range e1 {
		if math.Abs(e1[i]-2*e2[i]) > 1e-9*e1[i] {
			t.Fatalf("exp:1 and exp:2 weights are not the same run scaled: bin %d: %v vs 2·%v", i, e1[i], e2[i])
		}
	}
}

// A load counter never wraps: past 2^32 balls the engine holds 64-bit loads.
func TestLoadWidthFollowsBalls(t *testing.T) {
	small := mustSpec(t, "one-choice", nil, core.Common{Bins: 10, Balls: math.MaxUint32})
	big := mustSpec(t, "one-choice", nil, core.Common{Bins: 10, Balls: math.MaxUint32 + 1})
	if loadBytes(small) != 4 || loadBytes(big) != 8 {
		t.Errorf("load bytes: %d below 2^32 balls, %d at 2^32; want 4 and 8", loadBytes(small), loadBytes(big))
	}
	// The 64-bit loops carry a load past 2^32.
	loads := []uint64{math.MaxUint32 - 1}
	r := kernels.TrialStream(1, 0, kernels.LaneChoices)
	if m := kernels.TwoChoice(loads, &r, 5, loads[0]); m != math.MaxUint32+4 || loads[0] != m {
		t.Errorf("load after 2^32 − 1 + 5 balls: %d (max %d)", loads[0], m)
	}
}

func TestLongNoOverflowPast2To32(t *testing.T) {
	if testing.Short() {
		t.Skip("throws 2^32 + 3 balls: run by make test-long")
	}
	for _, e := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		s := mustSpec(t, "one-choice", nil, core.Common{Bins: 1, Balls: 1<<32 + 3, Engine: e})
		if r := RunTrial(s, 0, nil); r.MaxLoad != 1<<32+3 || r.Gap != 0 {
			t.Errorf("%s engine: one bin after 2^32 + 3 balls: max load %v, gap %v", e, r.MaxLoad, r.Gap)
		}
	}
}

// Golden output: the seeded results of a fixed set of runs, every field but
// the timings. Regenerate with go test ./core/engine -run Golden -update.
func TestGolden(t *testing.T) {
	specs := []struct {
		p      string
		params map[string]string
		c      core.Common
	}{
		{"one-choice", nil, core.Common{Bins: 100, Balls: 10000, Checkpoints: 3}},
		{"two-choice", nil, core.Common{Bins: 100, Balls: 10000, Checkpoints: 3}},
		{"d-choice", map[string]string{"d": "3"}, core.Common{Bins: 64, Balls: 5000}},
		{"one-plus-beta", map[string]string{"beta": "0.3"}, core.Common{Bins: 100, Balls: 10000, Checkpoints: 2}},
		{"always-go-left", map[string]string{"d": "4"}, core.Common{Bins: 100, Balls: 10000}},
		{"two-thinning", map[string]string{"threshold": "1.5"}, core.Common{Bins: 100, Balls: 10000, Checkpoints: 2}},
		{"two-choice", map[string]string{"weights": "exp:1"}, core.Common{Bins: 50, Balls: 2000, Checkpoints: 2}},
		{"one-choice", map[string]string{"weights": "const:3"}, core.Common{Bins: 50, Balls: 2000}},
		{"g-adv-comp", map[string]string{"g": "2"}, core.Common{Bins: 100, Balls: 10000}},
		{"tau-delay", map[string]string{"tau": "100", "delay": "uniform"}, core.Common{Bins: 100, Balls: 10000}},
		{"b-batch", map[string]string{"batch": "50"}, core.Common{Bins: 100, Balls: 10000, Checkpoints: 2}},
		{"one-choice", nil, core.Common{Bins: 100, Balls: 10000, Engine: core.EngineHistogram, Checkpoints: 2}},
		{"two-choice", nil, core.Common{Bins: 1 << 20, Balls: 1 << 22, Engine: core.EngineHistogram}},
		{"one-plus-beta", map[string]string{"beta": "0.3"}, core.Common{Bins: 1000, Balls: 10000, Engine: core.EngineHistogram}},
		{"b-batch", map[string]string{"batch": "50"}, core.Common{Bins: 100, Balls: 10000, Engine: core.EngineHistogram}},
	}
	var lines []string
	for _, sp := range specs {
		sp.c.Seed, sp.c.Trials, sp.c.Alpha = 2026, 2, 0.5
		if sp.c.Engine == "" {
			sp.c.Engine = core.EngineDirect
		}
		s := mustSpec(t, sp.p, sp.params, sp.c)
		for trial := range uint64(2) {
			r := RunTrial(s, trial, nil)
			r.ElapsedS, r.BallsPerS = 0, 0
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "golden.jsonl")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./core/engine -run Golden -update once)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("golden line %d differs:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("golden output has %d lines, want %d", len(gl), len(wl))
	}
}

// Batches as a setting reduce to the processes they equal, trial for trial:
// d-choice d = 2 and one-plus-beta β = 1 in batches of b are b-batch, and
// one-plus-beta β = 0 in batches is one-choice; on both engines.
func TestBatchSettingReductions(t *testing.T) {
	for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		c := core.Common{Bins: 300, Balls: 40_000, Seed: 11, Engine: eng, Checkpoints: 3}
		for _, b := range []string{"7", "300", "5000"} {
			want := RunTrial(mustSpec(t, "b-batch", map[string]string{"batch": b}, c), 2, nil)
			for _, tw := range []struct {
				process string
				params  map[string]string
			}{
				{"d-choice", map[string]string{"d": "2", "batch": b}},
				{"one-plus-beta", map[string]string{"beta": "1", "batch": b}},
			} {
				got := RunTrial(mustSpec(t, tw.process, tw.params, c), 2, nil)
				if got.Gap != want.Gap || got.MaxGap != want.MaxGap || !slices.Equal(got.Histogram, want.Histogram) {
					t.Errorf("%s %v on %s: gap %v max_gap %v, b-batch %v %v", tw.process, tw.params, eng, got.Gap, got.MaxGap, want.Gap, want.MaxGap)
				}
			}
		}
		one := RunTrial(mustSpec(t, "one-choice", nil, c), 2, nil)
		if got := RunTrial(mustSpec(t, "one-plus-beta", map[string]string{"beta": "0", "batch": "50"}, c), 2, nil); got.Gap != one.Gap || !slices.Equal(got.Histogram, one.Histogram) {
			t.Errorf("one-plus-beta β = 0 in batches on %s differs from one-choice", eng)
		}
	}
}
