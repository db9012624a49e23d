package output

import (
	"runtime"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
)

// The table keeps a summary per spec, not the trials: adding 10^5 results
// leaves the heap as it was.
func TestTableKeepsNoTrials(t *testing.T) {
	s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 10, Balls: 10, Trials: 100000, Seed: 1, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	tb := NewTable([]*core.Spec{s}, 1, false)
	r := engine.RunTrial(s, 0, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range s.Trials {
		c := *r
		c.Params = s.ParamsMap()
		c.Histogram = append(result.Histogram(nil), r.Histogram...)
		tb.Add(0, &c)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("the table holds %d MiB after 10^5 trials", grew>>20)
	}
	if tb.sums[0].trials != s.Trials {
		t.Errorf("summary of %d trials, want %d", tb.sums[0].trials, s.Trials)
	}
}

// The theory table's tail levels keep their digits: 7.275e-05, not 0.000073
// or 0.000000.
func TestFractionTailScientific(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0, "0"}, {1, "1.000000"}, {0.024668, "0.024668"}, {1e-3, "0.001000"}, {9.99e-4, "9.990e-04"}, {7.2754e-05, "7.275e-05"}, {3.2e-12, "3.200e-12"}} {
		if got := Fraction(c.x); got != c.want {
			t.Errorf("Fraction(%g) = %q, want %q", c.x, got, c.want)
		}
	}
}

// A run of one process at several parameters names its engine and the
// reason once; two processes with their own engines each once.
func TestAutoReasonsOnce(t *testing.T) {
	var specs []*core.Spec
	for _, c := range []string{"1.1", "1.25", "2"} {
		s, err := core.NewSpec("bounded-hashing", map[string]string{"c": c}, core.Common{Bins: 100, Balls: 100, Trials: 1, Seed: 1, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	why := autoReasons(specs)
	if why == "" || strings.Count(why, "bounded-hashing direct") != 1 {
		t.Errorf("autoReasons of three bounded-hashing specs: %q, want the engine and why once", why)
	}
	s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 100, Balls: 100, Trials: 1, Seed: 1, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if why := autoReasons(append(specs, s)); strings.Count(why, "; ") != 1 {
		t.Errorf("with two-choice: %q, want two reasons", why)
	}
}
