package balloc

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

type firstBin struct{}

func (firstBin) Choose([]uint32, *Rand) int { return 0 }

// Spec.Run is engine.RunTrial, trial for trial: the API adds nothing to a
// built-in process's numbers.
func TestRunIsCoreRunTrial(t *testing.T) {
	spec, err := NewSpec(Config{Process: "one-plus-beta", Params: map[string]string{"beta": "0.5"}, Bins: 500, Balls: 5000, Trials: 3, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := core.NewSpec("one-plus-beta", map[string]string{"beta": "0.5"}, core.Common{Bins: 500, Balls: 5000, Trials: 3, Seed: 11, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range spec.Run() {
		c := engine.RunTrial(cs, uint64(k), nil)
		if r.Gap != c.Gap || r.MaxLoad != c.MaxLoad || len(r.Histogram) != len(c.Histogram) {
			t.Errorf("trial %d: API gap %g max %g, core gap %g max %g", k, r.Gap, r.MaxLoad, c.Gap, c.MaxLoad)
		}
	}
}

func TestRuleConfigRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Rule: firstBin{}, Process: "two-choice", Bins: 4, Balls: 4}, "both Rule and Process"},
		{Config{Rule: firstBin{}, Bins: 0, Balls: 4}, "Bins 0"},
		{Config{Rule: firstBin{}, Bins: 4, Balls: 1 << 32}, "Balls 4294967296"},
		{Config{Process: "two-choice", Bins: 4, Balls: 4, Trials: -1}, "Trials -1"},
	} {
		if _, err := NewSpec(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
	spec, _ := NewSpec(Config{Rule: firstBin{}, Bins: 4, Balls: 8})
	r := spec.Trial(0)
	if r.MaxLoad != 8 || r.MinLoad != 0 || r.Gap != 6 {
		t.Errorf("all balls in bin 0: max %g min %g gap %g, want 8, 0, 6", r.MaxLoad, r.MinLoad, r.Gap)
	}
}
