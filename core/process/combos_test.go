package process

import (
	"fmt"
	"testing"
)

// A parameter a combination's mode ignores is left out of it, and a mode
// that ignores a listed parameter runs once, not once per value.
func TestCombosLeaveOutInertParameters(t *testing.T) {
	for _, c := range []struct {
		process string
		values  map[string][]string
		want    string
		used    []string
	}{
		{"graphical", map[string][]string{"strategy": {"greedy", "one-plus-beta", "haar"}, "beta": {"0.2", "0.5"}, "stale": {"0", "64"}},
			"[map[strategy:greedy] map[beta:0.2 strategy:one-plus-beta] map[stale:0 strategy:haar] map[stale:64 strategy:haar] map[beta:0.5 strategy:one-plus-beta]]",
			[]string{"strategy", "beta", "stale"}},
		{"graphical", map[string][]string{"beta": {"0.5"}}, "[map[]]", nil},
		{"idea", map[string][]string{"variant": {"numbered", "oracle"}, "held": {"drop", "carry"}, "sample-size": {"5"}},
			"[map[held:drop variant:numbered] map[held:carry variant:numbered] map[variant:oracle]]",
			[]string{"variant", "held"}},
		{"idea", map[string][]string{"dims": {"1", "8"}, "vector-gap": {"all"}},
			"[map[dims:1] map[dims:8 vector-gap:all]]", []string{"dims", "vector-gap"}},
		{"d-choice", map[string][]string{"d": {"2", "3"}, "beta": {"0.5"}}, "[map[d:2] map[d:3]]", []string{"d"}},
	} {
		p, err := Lookup(c.process)
		if err != nil {
			t.Fatal(err)
		}
		combos, used := p.Combos(c.values)
		if got := fmt.Sprint(combos); got != c.want {
			t.Errorf("%s %v: combos %s, want %s", c.process, c.values, got, c.want)
		}
		if len(used) != len(c.used) {
			t.Errorf("%s %v: used %v, want %v", c.process, c.values, used, c.used)
		}
		for _, k := range c.used {
			if !used[k] {
				t.Errorf("%s %v: %s not marked used", c.process, c.values, k)
			}
		}
	}
	if got := UnusedParamError("stale", []string{"graphical"}); got != "--stale applies to graphical --strategy haar only" {
		t.Errorf("UnusedParamError(stale) = %q", got)
	}
	if got := UnusedParamError("beta", []string{"two-choice"}); got != "--beta does not apply to two-choice" {
		t.Errorf("UnusedParamError(beta) = %q", got)
	}
}
