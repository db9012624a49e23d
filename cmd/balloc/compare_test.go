package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stats"
)

// tinySweep runs a small sweep with the given trials and extra settings and
// returns its folder.
func tinySweep(t *testing.T, trials int, extra string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.toml")
	writeFile(t, file, "processes = [\"two-choice\", \"g-adv-comp\"]\nbins = [50]\nballs = [500]\ntrials = "+strconv.Itoa(trials)+"\nseed = 3\nengine = \"direct\"\n"+extra)
	sw := filepath.Join(dir, "t")
	if code, _, errs := run(t, "sweep", file, "--out", sw, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	return sw
}

// TestSummarizeCSVNumbers: every numeric column of summarize --format csv
// parses as a number; with one trial sd and the interval are empty, and the
// table shows the interval as "–".
func TestSummarizeCSVNumbers(t *testing.T) {
	for _, trials := range []int{1, 5} {
		sw := tinySweep(t, trials, "[params]\ng = [1, 2]\n")
		code, out, errs := run(t, "summarize", sw, "--format", "csv")
		if code != 0 {
			t.Fatal(errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		head := recs[0]
		if !slices.Equal(head, []string{"point", "process", "adversary", "d", "g", "bins", "balls", "trials", "trials_planned", "mean", "sd", "ci_low", "ci_high",
			"max_gap_mean", "balls_per_s", "gap_low", "gap_high", "count", "pct"}) {
			t.Fatalf("header %v", head)
		}
		pctSum := map[string]float64{}
		for _, r := range recs[1:] {
			for j, col := range head {
				v := r[j]
				switch {
				case col == "process":
					continue
				case col == "adversary" || (col == "d" || col == "g") && v == "":
					continue // a parameter the process does not take
				case trials == 1 && (col == "sd" || col == "ci_low" || col == "ci_high"):
					if v != "" {
						t.Errorf("one trial: %s = %q, want empty", col, v)
					}
					continue
				}
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					t.Errorf("column %s: %q is not a number", col, v)
				}
			}
			p, _ := strconv.ParseFloat(r[len(r)-1], 64)
			pctSum[r[0]] += p
		}
		if len(pctSum) != 3 {
			t.Errorf("%d points, want 3", len(pctSum))
		}
		for pt, s := range pctSum {
			if math.Abs(s-100) > 1e-9 {
				t.Errorf("point %s: shares add up to %v", pt, s)
			}
		}
		_, table, _ := run(t, "summarize", sw)
		if got := strings.Contains(table, "± –"); got != (trials == 1) || strings.Contains(table, "± 0 ") {
			t.Errorf("%d trials: table\n%s", trials, table)
		}
	}
}

// TestSummarizeJSONL: one object per grid point, parameters as fields, the
// figures numbers (null spread for one trial), the distribution an array.
func TestSummarizeJSONL(t *testing.T) {
	sw := tinySweep(t, 1, "[params]\ng = 1\n")
	code, out, errs := run(t, "summarize", sw, "--format", "jsonl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	var o struct {
		Process string   `json:"process"`
		G       *float64 `json:"g"`
		Trials  int      `json:"trials"`
		Mean    *float64 `json:"mean"`
		SD      *float64 `json:"sd"`
		CILow   *float64 `json:"ci_low"`
		Dist    []struct {
			Low, High, Pct float64
			Count          int
		} `json:"gap_distribution"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &o); err != nil {
		t.Fatal(err)
	}
	if o.Process != "g-adv-comp" || o.G == nil || *o.G != 1 || o.Trials != 1 || o.Mean == nil || o.SD != nil || o.CILow != nil ||
		len(o.Dist) != 1 || o.Dist[0].Count != 1 || o.Dist[0].Pct != 100 {
		t.Errorf("%s", lines[1])
	}
}

// TestSummarizeBinsRealGaps: summarize of real gaps (random weights) has at
// most 10 distribution rows a point, not one per trial.
func TestSummarizeBinsRealGaps(t *testing.T) {
	sw := tinySweep(t, 30, "[params]\ng = 1\nweights = \"exp:1\"\n")
	_, out, _ := run(t, "summarize", sw, "--format", "csv")
	rows, _ := csv.NewReader(strings.NewReader(out)).ReadAll()
	if n := len(rows) - 1; n > 2*10 {
		t.Errorf("exp weights, 30 trials: %d distribution rows for 2 points, want at most 20", n)
	}
}

// TestSummarizeCompare: the references stand beside the simulation with
// their verdicts; a reference far off is OUT; points without one show "–".
func TestSummarizeCompare(t *testing.T) {
	sw := tinySweep(t, 20, "[params]\ng = [1, 2]\n")
	dir := filepath.Dir(sw)
	refPath := filepath.Join(dir, "r.toml")
	writeFile(t, refPath, "source = \"test\"\n[[ref]]\nprocess = \"g-adv-comp\"\nparams = { g = 1 }\ngap_mean = 1000\nnote = \"far off\"\n"+
		"[[ref]]\nprocess = \"two-choice\"\nbins = 50\nballs = \"5e2\"\nmax_gap_mean = 0\n")
	code, out, errs := run(t, "summarize", sw, "--compare", refPath)
	if code != 0 || !strings.Contains(out, "reference: test") || strings.Count(out, "OUT") < 2 || !strings.Contains(out, "[1] g-adv-comp adversary=greedy-reverse g=1") ||
		!strings.Contains(out, "2 cells tested, 2 OUT") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = run(t, "summarize", sw, "--compare", refPath, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 4 || recs[0][len(recs[0])-1] != "verdict" {
		t.Fatalf("csv: exit %d %v\n%s", code, err, out)
	}
}

// TestCompareBadSidecar: a bad reference file is refused before any work,
// in one line naming --compare, the file and the key.
func TestCompareBadSidecar(t *testing.T) {
	sw := tinySweep(t, 2, "[params]\ng = [1, 2]\n")
	dir := t.TempDir()
	ok := "[[ref]]\nprocess = \"g-adv-comp\"\nparams = { g = 1 }\n"
	for _, c := range []struct{ name, text, want string }{
		{"syntax", "[[ref]\n", ".toml:2:"},
		{"unknown top key", "sauce = 1\n" + ok + "gap_mean = 1\n", "sauce: not a reference setting"},
		{"unknown ref key", ok + "gap_meen = 1\n", "[[ref]] 1: gap_meen: not a reference key"},
		{"no process", "[[ref]]\ngap_mean = 1\n", "process: missing"},
		{"unknown process", "[[ref]]\nprocess = \"three-choice\"\ngap_mean = 1\n", `"three-choice" is not a process`},
		{"no value", ok, "no value to compare"},
		{"shares", ok + "gap_distribution = { 2 = 20, 3 = 30 }\n", "add up to 50%"},
		{"gap", ok + "gap_distribution = { x = 100 }\n", `"x": a gap must be a number`},
		{"share", ok + "gap_distribution = { 2 = 101 }\n", "gap_distribution: 2: want a share"},
		{"mean", ok + "gap_mean = \"4\"\n", "gap_mean: want a number"},
		{"bins", ok + "bins = -4\ngap_mean = 1\n", "bins:"},
		{"no refs", "source = \"x\"\n", "no [[ref]] tables"},
		{"no point", "[[ref]]\nprocess = \"g-adv-comp\"\nparams = { g = 9 }\ngap_mean = 1\n", "names no grid point"},
		{"two points", "[[ref]]\nprocess = \"g-adv-comp\"\ngap_mean = 1\n", "names 2 grid points"},
		{"twice", ok + "gap_mean = 1\n" + ok + "gap_mean = 2\n", "[[ref]] 1 and 2 both name"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".toml")
		writeFile(t, path, c.text)
		code, out, errs := run(t, "summarize", sw, "--compare", path)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--compare "+path) || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want one line naming %q", c.name, code, out, errs, c.want)
		}
	}
	for _, p := range []string{filepath.Join(dir, "missing.toml"), dir} {
		if code, _, errs := run(t, "summarize", sw, "--compare", p); code != 2 || !strings.Contains(errs, "--compare "+p) {
			t.Errorf("%s: exit %d %q", p, code, errs)
		}
	}
}

// ± in the --compare table is the table's one meaning, a 95% interval:
// t_{0.975, T−1} standard errors, the CSV's se column times that quantile.
func TestCompareIntervalIs95(t *testing.T) {
	sw := tinySweep(t, 20, "[params]\ng = [1]\n")
	refPath := filepath.Join(filepath.Dir(sw), "r.toml")
	writeFile(t, refPath, "[[ref]]\nprocess = \"g-adv-comp\"\nparams = { g = 1 }\ngap_mean = 3\n")
	code, out, _ := run(t, "summarize", sw, "--compare", refPath, "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) < 2 {
		t.Fatalf("csv: exit %d %v\n%s", code, err, out)
	}
	col := func(name string) string { return recs[len(recs)-1][slices.Index(recs[0], name)] } // g-adv-comp, the point compared
	sim, _ := strconv.ParseFloat(col("simulated"), 64)
	se, _ := strconv.ParseFloat(col("se"), 64)
	trials, _ := strconv.Atoi(col("trials"))
	_, out, _ = run(t, "summarize", sw, "--compare", refPath)
	want := fmt.Sprintf("%s ± %.3g", result.Figure(sim), stats.T975(trials-1)*se)
	if se <= 0 || !strings.Contains(out, want) || !strings.Contains(out, "simulated (mean ± 95% CI)") {
		t.Errorf("want %q (se %v, %d trials) in\n%s", want, se, trials, out)
	}
}
