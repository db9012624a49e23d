package core

import (
	"strings"
	"testing"
)

func TestNewSpecRejects(t *testing.T) {
	ok := Common{Bins: 100, Balls: 1000, Trials: 1, Alpha: 1}
	with := func(f func(*Common)) Common { c := ok; f(&c); return c }
	cases := []struct {
		process string
		params  map[string]string
		c       Common
		want    string // the error must mention this
	}{
		{"three-choice", nil, ok, `--process "three-choice"`},
		{"one-choice", map[string]string{"d": "2"}, ok, "--d does not apply to one-choice"},
		{"two-choice", map[string]string{"d": "3"}, ok, "--d does not apply to two-choice"},
		{"one-choice", map[string]string{"beta": "0.5"}, ok, "--beta does not apply"},
		{"one-plus-beta", nil, ok, "one-plus-beta needs --beta"},
		{"one-plus-beta", map[string]string{"beta": "1.5"}, ok, "--beta \"1.5\": want a probability in [0, 1]"},
		{"one-plus-beta", map[string]string{"beta": "-0"}, ok, ""},
		{"one-plus-beta", map[string]string{"beta": "nan"}, ok, "--beta"},
		{"d-choice", map[string]string{"d": "0"}, ok, "--d \"0\""},
		{"d-choice", map[string]string{"d": "2.5"}, ok, "--d \"2.5\""},
		{"d-choice", map[string]string{"d": "101"}, ok, "--d 101 exceeds --bins 100"},
		{"always-go-left", map[string]string{"d": "3"}, ok, "d must divide --bins 100"},
		{"two-thinning", nil, ok, "two-thinning needs --threshold"},
		{"two-thinning", map[string]string{"threshold": "inf"}, ok, "--threshold"},
		{"two-choice", map[string]string{"weights": "exp:0"}, ok, "--weights \"exp:0\""},
		{"two-choice", map[string]string{"weights": "normal:1"}, ok, "--weights"},
		{"one-plus-beta", map[string]string{"beta": "0.5", "weights": "exp:1"}, ok, "--weights does not apply to one-plus-beta"},
		{"one-choice", nil, with(func(c *Common) { c.Bins = 0 }), "--bins is required"},
		{"one-choice", nil, with(func(c *Common) { c.Trials = 0 }), "--trials 0"},
		{"one-choice", nil, with(func(c *Common) { c.Checkpoints = 1001 }), "--checkpoints 1001"},
		{"one-choice", nil, with(func(c *Common) { c.Engine = "gpu" }), `--engine "gpu"`},
		{"always-go-left", nil, with(func(c *Common) { c.Engine = EngineHistogram }), "--engine histogram: always-go-left is not symmetric"},
		{"tau-delay", map[string]string{"tau": "3"}, with(func(c *Common) { c.Engine = EngineHistogram }), "--engine histogram: tau-delay is not symmetric"},
		{"two-choice", map[string]string{"weights": "exp:1"}, with(func(c *Common) { c.Engine = EngineHistogram }), "--engine histogram: random weights"},
		{"two-choice", nil, with(func(c *Common) { c.Engine = EngineHistogram; c.KeepLoads = true }), "--engine histogram: --loads needs every bin's load"},
		{"one-choice", nil, with(func(c *Common) { c.Bins = 1 << 32; c.Engine = EngineDirect }), "--bins 4294967296: the direct engine holds at most 4294967295 bins; use --engine histogram"},
		{"always-go-left", nil, with(func(c *Common) { c.Bins = 1 << 32 }), "always-go-left cannot run on the histogram engine"},
		{"two-choice", nil, with(func(c *Common) { c.Bins = 1 << 51 }), "at most 2^50 bins"},
		{"one-choice", nil, with(func(c *Common) { c.Alpha = 1e7 }), "--alpha"},
		{"graphical", nil, ok, "graphical needs --graph"},
		{"graphical", map[string]string{"graph": "cycle:64"}, ok, "--bins 100 disagrees with --graph cycle:64, which has 64 vertices"},
		{"graphical", map[string]string{"graph": "cycle:100", "beta": "0.5"}, ok, "--beta applies to graphical --strategy one-plus-beta only"},
		{"graphical", map[string]string{"graph": "cycle:100", "strategy": "one-plus-beta"}, ok, "needs --beta"},
		{"graphical", map[string]string{"graph": "cycle:100", "strategy": "best"}, ok, `--strategy "best": want greedy, one-plus-beta or haar`},
		{"graphical", map[string]string{"graph": "cycle:2"}, ok, "a cycle needs 3 ≤ n"},
		{"graphical", map[string]string{"graph": "torus:10,2"}, ok, "every side of a torus must be at least 3"},
		{"graphical", map[string]string{"graph": "hypercube:40"}, ok, "1 ≤ k ≤ 31"},
		{"graphical", map[string]string{"graph": "wheel:5"}, ok, `unknown family "wheel"`},
		{"graphical", map[string]string{"graph": "cycle:1e2x"}, ok, "--graph cycle:1e2x"},
		{"graphical", map[string]string{"graph": "cycle:100", "graph-clean": "maybe"}, ok, `--graph-clean "maybe"`},
		{"graphical", map[string]string{"graph": "cycle:100"}, with(func(c *Common) { c.Balls = 10; c.BallsPerBin = 3 }), "give --balls or --balls-per-bin"},
		{"kp-groups", nil, ok, "kp-groups needs --group-size"},
		{"kp-groups", map[string]string{"group-size": "3"}, ok, "k must divide --bins 100"},
		{"kp-groups", map[string]string{"group-size": "60", "aligned": "false"}, ok, "need --bins ≥ 2k = 120"},
		{"kp-groups", map[string]string{"group-size": "4", "aligned": "maybe"}, ok, `--aligned "maybe": want true or false`},
		{"kp-groups", map[string]string{"group-size": "4", "group-rule": "max"}, ok, `--group-rule "max": want sum or min`},
		{"hypergraph", nil, ok, "hypergraph needs --hyperedges"},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3", "d": "4"}, ok, "--d 4 exceeds the smallest hyperedge"},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3", "refresh": "10"}, ok, "--refresh applies to --hyperedges random:s,k"},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3", "probe-all": "true", "d": "2"}, ok, "--d applies to hypergraph without --probe-all"},
		{"hypergraph", map[string]string{"hyperedges": "random:10,101"}, ok, "random:s,k"},
		{"hypergraph", map[string]string{"hyperedges": "intervals:3"}, with(func(c *Common) { c.Bins = 0 }), "needs --bins"},
	}
	for _, c := range cases {
		_, err := NewSpec(c.process, c.params, c.c)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: unexpected error %v", c.process, c.params, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v %+v: error %v, want one containing %q", c.process, c.params, c.c, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: error spans lines: %q", c.process, err)
		}
	}
}

func TestSpecDefaultsAndParams(t *testing.T) {
	s := mustSpec(t, "d-choice", nil, Common{Bins: 10, Balls: 10})
	if d := s.ParamsMap()["d"]; d != 2 {
		t.Errorf("d-choice default d = %d, want 2", d)
	}
	s = mustSpec(t, "two-choice", map[string]string{"weights": "exp:1"}, Common{Bins: 10, Balls: 10})
	if got := s.ParamsText(); got != "d=2 weights=exp:1" {
		t.Errorf("two-choice params %q", got)
	}
	s = mustSpec(t, "one-choice", nil, Common{Bins: 10, Balls: 10})
	if got := s.ParamsText(); got != "" {
		t.Errorf("one-choice params %q, want none (unit weights are the default)", got)
	}
}

// auto is a function of the spec alone: the engine the cost model of
// choose.go estimates faster among those that can run the spec.
func TestAutoEngine(t *testing.T) {
	for _, c := range []struct {
		process     string
		params      map[string]string
		bins, balls uint64
		loads       bool
		want        Engine
	}{
		{"two-choice", nil, 1000, 10, false, EngineDirect},
		{"two-choice", nil, 1 << 20, 10, false, EngineHistogram},
		{"two-choice", nil, 1 << 20, 10, true, EngineDirect},
		{"two-choice", map[string]string{"weights": "exp:1"}, 1 << 20, 10, false, EngineDirect},
		{"two-choice", map[string]string{"weights": "const:2"}, 1 << 20, 10, false, EngineHistogram},
		{"always-go-left", nil, 1 << 20, 10, false, EngineDirect},
		{"b-batch", map[string]string{"batch": "1000"}, 1 << 30, 10, false, EngineHistogram},
		{"one-choice", nil, 1e12, 10, false, EngineHistogram},
		// The cost model's cases: m = 1000·n on level batches, few bins ball
		// by ball, a b-batch run at heavy load (99 s on direct, 0.5 s on
		// histogram) and small batches, which are cheaper on direct.
		{"two-choice", nil, 1e4, 1e8, false, EngineDirect},
		{"two-choice", nil, 1e6, 1e9, false, EngineHistogram},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 1e4, 1e8, false, EngineDirect},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 1e6, 1e9, false, EngineHistogram},
		{"b-batch", map[string]string{"batch": "1000000"}, 1e6, 1e9, false, EngineHistogram},
		{"b-batch", map[string]string{"batch": "100"}, 1e4, 1e7, false, EngineDirect},
		{"two-thinning", map[string]string{"threshold": "1"}, 1e4, 1e8, false, EngineDirect},
		{"two-thinning", map[string]string{"threshold": "1"}, 1e8, 1e9, false, EngineHistogram},
		{"one-choice", nil, 1e4, 1e8, false, EngineHistogram},
		{"one-choice", nil, 1e3, 1e4, false, EngineDirect},
	} {
		s := mustSpec(t, c.process, c.params, Common{Bins: c.bins, Balls: c.balls, KeepLoads: c.loads})
		if got := s.ResolvedEngine(); got != c.want {
			t.Errorf("%s %v n=%d m=%d loads=%v: auto chose %s (%s), want %s", c.process, c.params, c.bins, c.balls, c.loads, got, s.EngineReason(), c.want)
		}
		if s.EngineReason() == "" {
			t.Errorf("%s %v n=%d m=%d: auto gives no reason", c.process, c.params, c.bins, c.balls)
		}
	}
	for _, e := range []Engine{EngineDirect, EngineHistogram} {
		if s := mustSpec(t, "two-choice", nil, Common{Bins: 1e6, Balls: 1e9, Engine: e}); s.EngineReason() != "" {
			t.Errorf("--engine %s: a reason %q, as if auto had chosen", e, s.EngineReason())
		}
	}
}

func mustSpec(t testing.TB, process string, params map[string]string, c Common) *Spec {
	t.Helper()
	if c.Alpha == 0 {
		c.Alpha = 1
	}
	if c.Trials == 0 {
		c.Trials = 1
	}
	s, err := NewSpec(process, params, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
