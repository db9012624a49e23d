package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// The bins sampled appear only for the processes that report them: a
// samples-per-ball table, a last csv column (empty for other processes'
// rows), and the json field.
func TestSamplesOnlyWhereReported(t *testing.T) {
	code, out, _ := run(t, "run", "--process", "twinning,two-choice", "--bins", "100", "--balls", "1001")
	if code != 0 || !strings.Contains(out, "samples/ball") || strings.Count(out, "\ntwinning ") != 2 || strings.Count(out, "\ntwo-choice") != 1 {
		t.Errorf("the table lacks the samples section, or lists two-choice in it:\n%s", out)
	}
	code, out, _ = run(t, "run", "--process", "two-choice", "--bins", "100", "--balls", "1000")
	if code != 0 || strings.Contains(out, "samples/ball") {
		t.Errorf("two-choice prints samples:\n%s", out)
	}
	code, out, _ = run(t, "run", "--process", "packing,two-choice", "--bins", "100", "--balls", "1001", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 3 || rows[0][len(rows[0])-1] != "samples" {
		t.Fatalf("csv: exit %d, %v, %v", code, err, rows)
	}
	if last := len(rows[0]) - 1; rows[1][0] != "packing" || rows[1][last] == "" || rows[2][last] != "" {
		t.Errorf("samples column: %v / %v", rows[1], rows[2])
	}
	code, out, _ = run(t, "run", "--process", "twinning,two-choice", "--bins", "100", "--balls", "1001", "--format", "jsonl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"samples":`) || strings.Contains(lines[1], `"samples"`) {
		t.Errorf("jsonl: %v", lines)
	}
}
