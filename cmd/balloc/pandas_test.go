package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/report"
)

// pandasPython is a python3 with pandas and matplotlib: the one on PATH,
// else Debian's (/usr/bin/python3, where .ci/run installs
// python3-pandas and python3-matplotlib); "" when neither has them.
func pandasPython() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import pandas, matplotlib").Run() == nil {
			return p
		}
	}
	return ""
}

// examples/sweep_pandas.py loads a sweep into pandas and draws it: its
// table of mean gaps and 95% intervals per process and n is the one
// balloc summarize computes (report.Read: the same means and Student t
// intervals, to the digits printed), and it writes the figure.
func TestPandasExample(t *testing.T) {
	python := pandasPython()
	if python == "" {
		t.Skip("no python3 with pandas and matplotlib is installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "gap-vs-n")
	if code, _, errs := run(t, "sweep", filepath.Join("..", "..", "examples", "gap-vs-n.toml"), "--out", out, "--progress", "never"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	png := filepath.Join(dir, "gap-vs-n.png")
	b, err := exec.Command(python, filepath.Join("..", "..", "examples", "sweep_pandas.py"), out, png).CombinedOutput()
	if err != nil {
		t.Fatalf("sweep_pandas.py: %v\n%s", err, b)
	}
	for _, want := range []string{"params.d", "figure: " + png} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q:\n%s", want, b)
		}
	}
	// The summary's rows: process bins count mean std ci.
	rows := map[string][]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			continue
		}
		var xs []float64
		for _, s := range f[1:] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				break
			}
			xs = append(xs, x)
		}
		if len(xs) == 5 {
			rows[fmt.Sprintf("%s %g", f[0], xs[0])] = xs
		}
	}
	sums, err := report.Read(out, math.NaN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(sums) {
		t.Fatalf("the script's summary has %d rows, the sweep %d points:\n%s", len(rows), len(sums), b)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-5*max(1, math.Abs(b)) }
	for _, s := range sums {
		key := fmt.Sprintf("%s %d", s.Point.Process, s.Point.Bins)
		r, ok := rows[key]
		if !ok {
			t.Errorf("the script's summary lacks %s", key)
			continue
		}
		if int(r[1]) != s.Trials || !close(r[2], s.Mean) || !close(r[4], (s.CIHigh-s.CILow)/2) {
			t.Errorf("%s: the script says %d trials, mean %g ± %g; summarize %d, %g ± %g", key, int(r[1]), r[2], r[4], s.Trials, s.Mean, (s.CIHigh-s.CILow)/2)
		}
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("no figure: %v", err)
	}
}
