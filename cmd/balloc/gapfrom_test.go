package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// summarize --gap-from F: each point's mean is the mean over trials of the
// trial's mean checkpoint gap at t ≥ F·m, computed here from results.jsonl
// by hand; max_gap_mean the mean of the window's largest. Catches a window
// taken on the wrong side of F·m, the final gap left in, or a mean over all
// checkpoints. Bad F and a sweep without checkpoints are refused.
func TestSummarizeGapFrom(t *testing.T) {
	sw := tinySweep(t, 3, "checkpoints = \"log:12\"\n[params]\ng = [1]\n")
	f, err := os.Open(filepath.Join(sw, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type point struct{ sum, top float64 }
	want := map[string]*point{}
	trials := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Process     string `json:"process"`
			Balls       uint64 `json:"balls"`
			Checkpoints []struct {
				Balls uint64  `json:"balls"`
				Gap   float64 `json:"gap"`
			} `json:"checkpoints"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		s, k, top := 0.0, 0, math.Inf(-1)
		for _, c := range r.Checkpoints {
			if 2*c.Balls >= 500 {
				s, k, top = s+c.Gap, k+1, math.Max(top, c.Gap)
			}
		}
		if k < 2 {
			t.Fatalf("%d checkpoints in the window; the test needs several", k)
		}
		p := want[r.Process]
		if p == nil {
			p = &point{}
			want[r.Process] = p
		}
		p.sum += s / float64(k)
		p.top += top
		trials[r.Process]++
	}
	code, out, errs := run(t, "summarize", sw, "--gap-from", "0.5", "--format", "jsonl")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			Process string  `json:"process"`
			From    float64 `json:"gap_from"`
			Mean    float64 `json:"mean"`
			MaxGap  float64 `json:"max_gap_mean"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		p, k := want[s.Process], float64(trials[s.Process])
		if s.From != 0.5 || math.Abs(s.Mean-p.sum/k) > 1e-9 || math.Abs(s.MaxGap-p.top/k) > 1e-9 {
			t.Errorf("%s: gap_from %v mean %v max_gap %v; by hand %v, %v", s.Process, s.From, s.Mean, s.MaxGap, p.sum/k, p.top/k)
		}
	}
	if _, table, _ := run(t, "summarize", sw, "--gap-from", "0.5"); !strings.Contains(table, "gap over t ≥ 0.5·m") {
		t.Errorf("table header does not name the window:\n%s", table)
	}
	for _, bad := range []string{"1", "-0.1", "x", "NaN"} {
		if code, _, errs := run(t, "summarize", sw, "--gap-from", bad); code != 2 || !strings.Contains(errs, "--gap-from") || strings.Count(errs, "\n") != 1 {
			t.Errorf("--gap-from %s: exit %d, %q", bad, code, errs)
		}
	}
	plain := tinySweep(t, 2, "[params]\ng = [1]\n")
	if code, _, errs := run(t, "summarize", plain, "--gap-from", "0.5"); code != 2 || !strings.Contains(errs, "no checkpoint") {
		t.Errorf("no checkpoints: exit %d, %q", code, errs)
	}
}
