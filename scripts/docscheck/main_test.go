package main

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	quoted := []string{
		"n = 1e4 bins, 10 trial(s) each, 2 worker(s)",
		"",
		"process     gap    balls/s   max",
		"two-choice  2.5    3.01e+08  3",
		"greedy  gap 0.9 ± 0.075   (0.00921 s)",
		"[the rest]",
		"fixed point: 7",
	}
	same := []string{
		"n = 1e4 bins, 10 trial(s) each, 16 worker(s)",
		"",
		"process     gap    balls/s   max",
		"two-choice  2.5    9.9e+07   3",
		"greedy  gap 0.9 ± 0.075   (0.0153 s)",
		"a line the block leaves out",
		"another",
		"fixed point: 7",
	}
	diffs, speeds := compare(quoted, same)
	if len(diffs) != 0 || len(speeds) != 3 {
		t.Errorf("a run differing in speed, workers and time only: diffs %q, not compared %q", diffs, speeds)
	}
	for name, change := range map[string]func([]string){
		"a gap":            func(l []string) { l[3] = strings.Replace(l[3], "2.5", "2.6", 1) },
		"the bins":         func(l []string) { l[0] = strings.Replace(l[0], "1e4", "1e5", 1) },
		"a field fewer":    func(l []string) { l[3] = "two-choice  2.5    9.9e+07" },
		"after the elided": func(l []string) { l[7] = "fixed point: 8" },
		"a line more":      func(l []string) { l[7] += "\nextra" },
		"a mean by a time": func(l []string) { l[4] = "greedy  gap 0.8 ± 0.075   (0.00921 s)" },
	} {
		got := strings.Split(strings.Join(same, "\n"), "\n")
		change(got)
		got = strings.Split(strings.Join(got, "\n"), "\n")
		if diffs, _ := compare(quoted, got); len(diffs) == 0 {
			t.Errorf("%s changed: no difference found", name)
		}
	}
}
