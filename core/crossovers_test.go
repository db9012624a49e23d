package core

import (
	"regexp"
	"strconv"
	"testing"
)

// The crossovers balloc info prints are the cost model's: at each stated
// n auto picks the histogram engine, at a tenth of it direct.
func TestAutoCrossovers(t *testing.T) {
	names := map[string]string{"one-choice": "one-choice", "two-choice": "two-choice", "(1+β)": "one-plus-beta"}
	found := regexp.MustCompile(`(one-choice|two-choice|\(1\+β\)) [^,\n]*?10\^(\d+)`).FindAllStringSubmatch(AutoCrossovers(10_000), -1)
	if len(found) != 3 {
		t.Fatalf("autoCrossovers: %q", AutoCrossovers(10_000))
	}
	for _, m := range found {
		e, _ := strconv.Atoi(m[2])
		set := map[string]string(nil)
		if m[1] == "(1+β)" {
			set = map[string]string{"beta": "0.5"}
		}
		for _, c := range []struct {
			e    int
			want Engine
		}{{e, EngineHistogram}, {e - 1, EngineDirect}} {
			n := uint64(1)
			for range c.e {
				n *= 10
			}
			s, err := NewSpec(names[m[1]], set, Common{Bins: n, Balls: n * 10_000, Trials: 1, Engine: EngineAuto})
			if err != nil || s.ResolvedEngine() != c.want {
				t.Errorf("%s at n = 10^%d: %v (%v), info implies %s", m[1], c.e, s.ResolvedEngine(), err, c.want)
			}
		}
	}
}
