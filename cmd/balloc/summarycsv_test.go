package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// summarize --format csv, with and without --gap-from: each point's mean,
// sd, max_gap_mean and balls_per_s columns against those figures computed
// here from results.jsonl by hand (the mean gap, its sample standard
// deviation, the mean of the trials' max_gap, the mean rate). The points'
// mean gap and mean max_gap differ, so a column written from the wrong
// figure fails: catches the CSV writing the mean gap in max_gap_mean's
// column (which the jsonl and table checks did not see).
func TestSummarizeCSVColumnsByHand(t *testing.T) {
	sw := tinySweep(t, 4, "checkpoints = \"log:12\"\n[params]\ng = [1]\n")
	type figures struct{ gaps, maxGaps, rates []float64 }
	byHand := func(from float64) map[string]*figures {
		f, err := os.Open(filepath.Join(sw, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out := map[string]*figures{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var r struct {
				Process     string  `json:"process"`
				Balls       uint64  `json:"balls"`
				Gap         float64 `json:"gap"`
				MaxGap      float64 `json:"max_gap"`
				Rate        float64 `json:"balls_per_s"`
				Checkpoints []struct {
					Balls uint64  `json:"balls"`
					Gap   float64 `json:"gap"`
				} `json:"checkpoints"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			gap, top := r.Gap, r.MaxGap
			if from > 0 { // the window's mean and largest
				s, k := 0.0, 0
				top = math.Inf(-1)
				for _, c := range r.Checkpoints {
					if float64(c.Balls) >= from*float64(r.Balls) {
						s, k, top = s+c.Gap, k+1, math.Max(top, c.Gap)
					}
				}
				gap = s / float64(k)
			}
			p := out[r.Process]
			if p == nil {
				p = &figures{}
				out[r.Process] = p
			}
			p.gaps, p.maxGaps, p.rates = append(p.gaps, gap), append(p.maxGaps, top), append(p.rates, r.Rate)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s / float64(len(x))
	}
	sd := func(x []float64) float64 {
		m, s := mean(x), 0.0
		for _, v := range x {
			s += (v - m) * (v - m)
		}
		return math.Sqrt(s / float64(len(x)-1))
	}
	for _, from := range []float64{0, 0.5} {
		args := []string{"summarize", sw, "--format", "csv"}
		if from > 0 {
			args = append(args, "--gap-from", strconv.FormatFloat(from, 'g', -1, 64))
		}
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatal(errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for j, h := range recs[0] {
			col[h] = j
		}
		want := byHand(from)
		differ := false
		for _, r := range recs[1:] {
			p := want[r[col["process"]]]
			if p == nil {
				t.Fatalf("--gap-from %v: a row for %q, not in results.jsonl", from, r[col["process"]])
			}
			differ = differ || math.Abs(mean(p.gaps)-mean(p.maxGaps)) > 1e-6
			for _, c := range []struct {
				name string
				want float64
			}{{"mean", mean(p.gaps)}, {"sd", sd(p.gaps)}, {"max_gap_mean", mean(p.maxGaps)}, {"balls_per_s", mean(p.rates)}} {
				got, err := strconv.ParseFloat(r[col[c.name]], 64)
				if err != nil || math.Abs(got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
					t.Errorf("--gap-from %v, %s: column %s = %q, by hand %v", from, r[col["process"]], c.name, r[col[c.name]], c.want)
				}
			}
		}
		if !differ {
			t.Fatalf("--gap-from %v: every point's mean gap equals its mean max_gap; the test cannot tell the columns apart", from)
		}
	}
}
