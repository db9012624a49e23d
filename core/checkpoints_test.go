package core

import (
	"math"
	"slices"
	"testing"
)

// Log spacing: first n, last m, strictly increasing, each ratio about
// (m/n)^(1/(K−1)); and duplicates dropped where m/n is small against K.
func TestLogCheckpoints(t *testing.T) {
	got := LogCheckpoints(10, 10000, 4)
	if want := []uint64{10, 100, 1000, 10000}; !slices.Equal(got, want) {
		t.Fatalf("LogCheckpoints(10, 1e4, 4) = %v, want %v", got, want)
	}
	pts := LogCheckpoints(16384, 1<<39, 100)
	if len(pts) != 100 || pts[0] != 16384 || pts[99] != 1<<39 {
		t.Fatalf("n = 2^14, m = 2^39, K = 100: %d points from %d to %d", len(pts), pts[0], pts[len(pts)-1])
	}
	for i, p := range pts { // the literal 2^14 · 2^(25·i/99), to within the rounding of exp∘log
		if want := math.Round(16384 * math.Pow(2, 25*float64(i)/99)); math.Abs(float64(p)-want) > 1 {
			t.Fatalf("point %d = %d, want %v", i, p, want)
		}
	}
	few := LogCheckpoints(5, 8, 10) // 5 … 8 in 10 steps: rounding repeats values
	if want := []uint64{5, 6, 7, 8}; !slices.Equal(few, want) {
		t.Fatalf("LogCheckpoints(5, 8, 10) = %v, want %v", few, want)
	}
	if got := (&Common{Bins: 100, Checkpoints: 3, CheckpointsLog: true}).CheckpointTargets(50); !slices.Equal(got, []uint64{50}) {
		t.Fatalf("m < n: %v, want [50] (start at min(n, m))", got)
	}
}

func TestParseCheckpoints(t *testing.T) {
	for _, c := range []struct {
		in  string
		k   uint64
		log bool
		ok  bool
	}{{"20", 20, false, true}, {"log:64", 64, true, true}, {"log:1e2", 100, true, true},
		{"log:1", 0, false, false}, {"log:", 0, false, false}, {"lin:4", 0, false, false}, {"-1", 0, false, false}} {
		k, log, err := ParseCheckpoints(c.in)
		if (err == nil) != c.ok || k != c.k || log != c.log {
			t.Errorf("ParseCheckpoints(%q) = %d, %v, %v; want %d, %v, ok %v", c.in, k, log, err, c.k, c.log, c.ok)
		}
		if err == nil {
			if back, _, _ := ParseCheckpoints(FormatCheckpoints(k, log)); back != k {
				t.Errorf("FormatCheckpoints(%d, %v) = %q does not read back", k, log, FormatCheckpoints(k, log))
			}
		}
	}
}
