package main

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// Probes (threshold, adaptive) appear in the table, the csv and the JSON
// only for the processes that report them, and a run without them has none.
func TestProbesOnlyForRetryingProcesses(t *testing.T) {
	base := []string{"run", "--bins", "50", "--balls", "2000", "--trials", "2", "--progress", "never"}
	out := func(process, format string) string {
		t.Helper()
		code, stdout, stderr := run(t, append(append([]string(nil), base...), "--process", process, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", process, format, code, stderr)
		}
		return stdout
	}
	if tab := out("threshold,two-choice", "table"); !strings.Contains(tab, "probes (load reads per ball; per arrival when balls leave)") || strings.Count(tab, "\nthreshold ") != 2 {
		t.Errorf("table without its probes section for threshold:\n%s", tab)
	}
	if tab := out("two-choice,one-choice", "table"); strings.Contains(tab, "probes") {
		t.Errorf("table with probes for processes without them:\n%s", tab)
	}
	rows, err := csv.NewReader(strings.NewReader(out("adaptive,two-choice", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if head[len(head)-2] != "probes_mean" || head[len(head)-1] != "probes_max" {
		t.Fatalf("csv header %v", head)
	}
	for _, r := range rows[1:] {
		if got := r[len(r)-2] != ""; got != (r[0] == "adaptive") {
			t.Errorf("csv row %v: probes %q for %s", r, r[len(r)-2], r[0])
		}
	}
	if h, _ := csv.NewReader(strings.NewReader(out("two-choice", "csv"))).Read(); strings.Contains(strings.Join(h, ","), "probes") {
		t.Errorf("csv header of two-choice has probes: %v", h)
	}
	for _, line := range strings.Split(strings.TrimSpace(out("threshold,two-choice", "jsonl")), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		p, ok := r["probes"].(map[string]any)
		if ok != (r["process"] == "threshold") || (ok && (p["mean"].(float64) < 1 || p["max"].(float64) < 1)) {
			t.Errorf("%s: probes %v", r["process"], r["probes"])
		}
	}
}
