package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
)

// writeFolder runs a sweep file's trials with the library alone (no
// command) and writes the folder balloc sweep would: its manifest and
// results. It returns the folder and the results by grid point.
func writeFolder(t *testing.T, toml string) (string, [][]*result.Result) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := sweep.ReadGrid(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sweep.NewManifest(g, "", "test", "test").Write(out); err != nil {
		t.Fatal(err)
	}
	rw, err := sweep.AppendResults(filepath.Join(out, "results.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	byPoint := make([][]*result.Result, len(g.Specs))
	for p, s := range g.Specs {
		for k := range uint64(s.Trials) {
			r := engine.RunTrial(s, k, nil)
			r.SpecHash = g.Hashes[p]
			if err := rw.Write(r); err != nil {
				t.Fatal(err)
			}
			byPoint[p] = append(byPoint[p], r)
		}
	}
	return out, byPoint
}

// A Go program summarizes a folder without the binary: Read's figures are
// those of the trials written (the mean gap, its spread and max_gap by
// hand), and Write's JSON Lines carry them. A summary of the wrong point's
// trials, or an interval that is not Student t's, fails.
func TestReadAndWriteWithoutTheCommand(t *testing.T) {
	dir, byPoint := writeFolder(t, "processes = [\"one-choice\", \"two-choice\"]\nbins = [20]\nballs = [400]\ntrials = 6\nseed = 5\n")
	sums, err := Read(dir, math.NaN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2", len(sums))
	}
	for p, s := range sums {
		rs := byPoint[p]
		mean, maxGap := 0.0, 0.0
		for _, r := range rs {
			mean += r.Gap / float64(len(rs))
			maxGap += r.MaxGap / float64(len(rs))
		}
		ss := 0.0
		for _, r := range rs {
			ss += (r.Gap - mean) * (r.Gap - mean)
		}
		sd := math.Sqrt(ss / float64(len(rs)-1))
		const t5 = 2.5706 // Student t, 5 degrees of freedom, 97.5%
		if s.Point.Process != rs[0].Process || s.Trials != len(rs) || math.Abs(s.Mean-mean) > 1e-12 || math.Abs(s.SD-sd) > 1e-12 ||
			math.Abs(s.MaxGapMean-maxGap) > 1e-12 || math.Abs((s.CIHigh-s.CILow)/2-t5*sd/math.Sqrt(6)) > 1e-3*sd {
			t.Errorf("point %d: %+v; want %s, 6 trials, mean %v, sd %v, max_gap %v", p, s, rs[0].Process, mean, sd, maxGap)
		}
	}
	var b bytes.Buffer
	if err := Write(sums, "jsonl", &b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for i, line := range lines {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil || row["mean"] != sums[i].Mean || row["process"] != sums[i].Point.Process {
			t.Errorf("jsonl line %d: %v %s", i, err, line)
		}
	}
	if len(lines) != 2 {
		t.Errorf("%d jsonl lines, want 2", len(lines))
	}
}
