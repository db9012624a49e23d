package report

import (
	"math"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/sweep"
)

// The crossing of a difference that is −1 at n = 1024 and +1 at n = 4096 is
// n = 2048, the midpoint in log n (not 2560, the midpoint in n), and its
// interval's ends are where |D(w)| equals the Welch 95% half-width, found
// here by bisection. Catches a sign taken the wrong way, interpolation in n,
// or an interval from the wrong variance.
func TestCrossingsMidpointAndInterval(t *testing.T) {
	s := side{se: 0.3, trials: 6}
	a1, b1, a2, b2 := s, s, s, s
	a1.mean, b1.mean = 10, 11 // D = −1
	a2.mean, b2.mean = 13, 12 // D = +1
	ps := []crossPair{{n: 1024, pa: a1, pb: b1}, {n: 4096, pa: a2, pb: b2}}
	cs := crossings(ps)
	if len(cs) != 1 {
		t.Fatalf("%d crossings, want 1", len(cs))
	}
	c := cs[0]
	if math.Abs(c.at-2048) > 1e-9 {
		t.Errorf("crossing at %v, want 2048", c.at)
	}
	f := func(w float64) float64 { return math.Abs(2*w-1) - halfWidth(w, ps[0], ps[1]) }
	root := func(lo, hi float64) float64 { // f(lo) > 0 > f(hi) or the reverse
		for range 60 {
			mid := (lo + hi) / 2
			if (f(mid) > 0) == (f(lo) > 0) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return (lo + hi) / 2
	}
	wl, wh := root(0, 0.5), root(0.5, 1)
	nl, nh := 1024*math.Pow(4, wl), 1024*math.Pow(4, wh)
	if math.Abs(c.lo-nl) > 2e-4*nl || math.Abs(c.hi-nh) > 2e-4*nh || c.loOpen || c.hiOpen {
		t.Errorf("interval [%v, %v] (open %v %v), want [%v, %v]", c.lo, c.hi, c.loOpen, c.hiOpen, nl, nh)
	}
	// The same means with a standard error of 2: zero is within the
	// interval at both ends, which must say so.
	for _, p := range []*side{&ps[0].pa, &ps[0].pb, &ps[1].pa, &ps[1].pb} {
		p.se = 2
	}
	if c := crossings(ps)[0]; !c.loOpen || !c.hiOpen {
		t.Errorf("wide errors: interval [%v, %v] not open at both ends", c.lo, c.hi)
	}
	// No change of sign, no crossing.
	ps[1].pa.mean = 11
	if cs := crossings(ps); len(cs) != 0 {
		t.Errorf("D = −1, −1: %d crossings", len(cs))
	}
}

// A pair with a side below 2 trials (a sweep still running) is left out and
// named; the others are kept.
func TestCrossoverLeavesOutThinPairs(t *testing.T) {
	pt := func(n uint64, strategy string, trials int, mean float64) Summary {
		return Summary{Point: sweep.Point{Process: "graphical", Bins: n, Params: map[string]any{"strategy": strategy}}, Trials: trials, Mean: mean, SD: 1}
	}
	c := &Crossover{key: "strategy", a: "greedy", b: "haar"}
	ps, err := c.pairs([]Summary{pt(8, "greedy", 3, 1), pt(8, "haar", 3, 2), pt(16, "greedy", 3, 3), pt(16, "haar", 1, 2), pt(32, "greedy", 2, 5), pt(32, "haar", 2, 4)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].n != 8 || ps[1].n != 32 || len(c.left) != 1 || !strings.Contains(c.left[0], "n = 16 (3 and 1 trials)") {
		t.Errorf("pairs %v, left out %v", ps, c.left)
	}
}

// The interval reaches into the neighbouring segment when the difference at
// the segment's end is itself within its errors of 0: D = −10 ± 0.1 at
// n = 1024, −0.5 ± 3 at 2048, +5 ± 3 at 4096 crosses between 2048 and 4096,
// and the interval's lower end lies between 1024 and 2048, where
// |D| = its half-width (bisection). Catches an interval cut at the
// crossing's own segment.
func TestCrossingIntervalSpansSegments(t *testing.T) {
	mk := func(n uint64, d, se float64) crossPair {
		s := se / math.Sqrt2
		return crossPair{n: n, pa: side{mean: d, se: s, trials: 6}, pb: side{mean: 0, se: s, trials: 6}}
	}
	ps := []crossPair{mk(1024, -10, 0.1), mk(2048, -0.5, 3), mk(4096, 5, 3)}
	cs := crossings(ps)
	if len(cs) != 1 || cs[0].from != 2048 {
		t.Fatalf("crossings %+v", cs)
	}
	f := func(w float64) float64 { return math.Abs(-10*(1-w)-0.5*w) - halfWidth(w, ps[0], ps[1]) }
	lo, hi := 0.0, 1.0 // f(0) > 0 > f(1)
	for range 60 {
		if mid := (lo + hi) / 2; f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	want := 1024 * math.Pow(2, lo)
	if c := cs[0]; c.loOpen || math.Abs(c.lo-want) > 2e-4*want || !c.hiOpen {
		t.Errorf("interval [%v, %v] open %v %v, want lower end %v (and open above 4096)", c.lo, c.hi, c.loOpen, c.hiOpen, want)
	}
}
