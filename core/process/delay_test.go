package process

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/kernels"
)

// setUp applies set to a fresh process of entry name and checks it on n
// bins and m balls, as core.NewSpec does.
func setUp(t *testing.T, name string, set map[string]string) (Process, error) {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p := e.New()
	var w Weights // --weights, for a weighted process, among set
	if err := Apply(p, set, &w); err != nil {
		return p, err
	}
	given := map[string]bool{}
	for k := range set {
		given[k] = true
	}
	return p, p.Check(&Setup{Bins: 8, Balls: 100, Seed: 1, Weights: w, Given: given})
}

// The setting's values: τ 0 is shown nowhere (the process itself, the same
// results and hash), τ ≥ 1 with its mode; τ from an empirical law.
func TestDelayedValues(t *testing.T) {
	for _, c := range []struct {
		process string
		set     map[string]string
		want    string
	}{
		{"d-choice", map[string]string{"d": "3", "tau": "0", "delay": "uniform"}, "d=3"},
		{"two-choice", map[string]string{"tau": "0"}, "d=2"},
		{"two-choice", map[string]string{"tau": "5", "delay": "adversarial"}, "d=2 tau=5 delay=adversarial"},
		{"one-plus-beta", map[string]string{"beta": "0.5", "tau": "1e3"}, "beta=0.5 tau=1000 delay=fixed"},
		{"two-thinning", map[string]string{"threshold": "1", "batch": "4"}, "threshold=1 batch=4"},
	} {
		p, err := setUp(t, c.process, c.set)
		if err != nil {
			t.Fatalf("%s %v: %v", c.process, c.set, err)
		}
		if got := ValuesText(Values(p, Weights{})); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.process, c.set, got, c.want)
		}
	}
}

// Every refusal of the setting names its flag in one line.
func TestDelayedRefusals(t *testing.T) {
	for _, c := range []struct {
		process string
		set     map[string]string
		want    string
	}{
		{"d-choice", map[string]string{"d": "3", "tau": "4", "batch": "2"}, "--tau 4 with --batch 2"},
		{"quantile", map[string]string{"delta": "0.5", "tau": "4", "delay": "uniform"}, "--delay uniform: quantile's rank test"},
		{"mixed-quantile", map[string]string{"delta": "0.5", "eta": "0.5", "tau": "4", "delay": "adversarial"}, "--delay adversarial: mixed-quantile"},
		{"one-plus-beta", map[string]string{"beta": "0.5", "delay": "uniform"}, "--delay uniform: one-plus-beta reads loads as they are"},
		{"d-choice", map[string]string{"d": "3", "tau": "4", "weights": "exp:1"}, "--weights: d-choice with --tau 4 places unit balls"},
		{"d-choice", map[string]string{"d": "2", "dims": "2", "tau": "4"}, "--tau: delayed reads run with scalar balls"},
		{"two-thinning", map[string]string{"threshold": "1", "tau": "4x"}, "--tau"},
		{"two-choice", map[string]string{"tau": "4", "delay": "sometimes"}, "--delay \"sometimes\""},
		{"two-choice", map[string]string{"delay": "replay"}, "two-choice needs --replay"},
	} {
		_, err := setUp(t, c.process, c.set)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: %v, want one line with %q", c.process, c.set, err, c.want)
		}
	}
	// Weighted two-choice with a delay is tau-delay's, and runs.
	if _, err := setUp(t, "two-choice", map[string]string{"tau": "4", "weights": "exp:1"}); err != nil {
		t.Errorf("two-choice --tau 4 --weights exp:1: %v", err)
	}
}

// The setting keeps a process off the histogram engine only when on.
func TestDelayedHistogramWhy(t *testing.T) {
	for _, name := range []string{"d-choice", "one-plus-beta", "quantile", "two-thinning"} {
		set := map[string]string{"d": "3", "beta": "0.5", "delta": "0.5", "threshold": "1"}
		e, _ := Lookup(name)
		for k := range set {
			if !e.Takes(k) {
				delete(set, k)
			}
		}
		p, err := setUp(t, name, set)
		if err != nil {
			t.Fatal(err)
		}
		if why := p.(HistogramWhy).HistogramWhy(); why != "" {
			t.Errorf("%s: %q without --tau", name, why)
		}
		set["tau"] = "3"
		if p, err = setUp(t, name, set); err != nil {
			t.Fatal(err)
		}
		if why := p.(HistogramWhy).HistogramWhy(); !strings.Contains(why, "direct engine") {
			t.Errorf("%s --tau 3: %q", name, why)
		}
	}
	var d Delayed
	if d.Delay != kernels.DelayFixed || d.on() {
		t.Error("the zero setting is not fixed and off")
	}
}
