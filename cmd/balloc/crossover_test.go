package main

import (
	"strings"
	"testing"
)

// summarize --crossover on a real sweep: one-choice's gap stays above
// two-choice's at every n; the table has a row per n; bad values refused.
func TestSummarizeCrossover(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/x.toml", "processes = [\"one-choice\", \"two-choice\"]\nbins = [10, 40, 160]\nballs_per_bin = [50]\ntrials = 3\nseed = 2\n")
	if code, _, errs := run(t, "sweep", dir+"/x.toml", "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "summarize", dir+"/x", "--crossover", "process=one-choice,two-choice")
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "no crossing") || strings.Count(out, "\n") != 6 {
		t.Errorf("output:\n%s", out)
	}
	// By a parameter that one side's process adds parameters to: graphical
	// haar takes haar-scale, greedy does not; the pairs match on graph.
	writeFile(t, dir+"/g.toml", "processes = [\"graphical\"]\nballs_per_bin = [64]\ntrials = 2\n[params]\nstrategy = [\"greedy\", \"haar\"]\ngraph = [\"cycle:16\", \"cycle:32\"]\n")
	if code, _, errs := run(t, "sweep", dir+"/g.toml", "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	if code, out, errs := run(t, "summarize", dir+"/g", "--crossover", "strategy=greedy,haar"); code != 0 || strings.Count(out, "\n") != 5 {
		t.Errorf("graphical by strategy: exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range [][]string{{"--crossover", "strategy"}, {"--crossover", "p=a,a"}, {"--crossover", "p=a,b,c"},
		{"--crossover", "process=one-choice,two-choice", "--format", "csv"}, {"--crossover", "process=one-choice,d-choice"}} {
		if code, _, errs := run(t, append([]string{"summarize", dir + "/x"}, bad...)...); code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}
