package main

import (
	"strings"
	"testing"
)

// A flag given twice kept its last value, and an empty one meant the
// default; each is now refused in one line naming the flag, in every
// command.
func TestRepeatedAndEmptyFlagsRefused(t *testing.T) {
	run1 := []string{"run", "--process", "two-choice", "--balls", "8"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(run1, "--bins", "1000", "--bins", "2000"), `balloc: flag --bins given twice ("1000", then "2000"): give it once; a list is one comma-separated value`},
		{append(run1, "--bins", "4", "--engine", ""), "balloc: flag --engine is empty: give a value or leave the flag out (default auto)"},
		{append(run1, "--bins", "4", "--engine="), "balloc: flag --engine is empty: give a value or leave the flag out (default auto)"},
		{append(run1, "--bins", "4", "--theory", "--theory=false"), `balloc: flag --theory given twice ("true", then "false"): give it once`},
		{[]string{"merge", "x", "--out", ""}, "balloc: flag --out is empty: give a value or leave the flag out"},
		{[]string{"sweep", "x.toml", "--out", ""}, "balloc: flag --out is empty"},
		{[]string{"plot", "x", "--kind", "gap-vs-balls", "--kind", "gap-vs-bins"}, "balloc: flag --kind given twice"},
		{[]string{"concurrent", "--process", "two-choice", "--bins", "4", "--balls", "8", "--compare=false", "--compare"}, "balloc: flag --compare given twice"},
		{[]string{"haar-info", "--graph", "cycle:8", "--graph", "cycle:16"}, "balloc: flag --graph given twice"},
		{[]string{"slurm", "x.toml", "--tasks", "2", "--partition", ""}, "balloc: flag --partition is empty"},
	} {
		code, out, errs := run(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// Boolean flags, flags that may stand alone, help and lists work as before.
func TestStrictFlagsKeepWhatWorked(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--theory"},
		{"run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--theory=false", "--format", "json", "--loads"},
		{"run", "--process", "kp-groups", "--group-size", "2", "--aligned", "--bins", "4", "--balls", "8"},
		{"run", "--process", "kp-groups", "--group-size", "2", "--aligned=false,true", "--bins", "4", "--balls", "8"},
		{"run", "--process", "g-myopic-comp", "--g", "0,1,2", "--bins", "4", "--balls", "8"},
		{"run", "--help"}, {"run", "-h"}, {"help", "sweep"},
		{"concurrent", "--process", "two-choice", "--bins", "4", "--balls", "8", "--compare=false"},
	} {
		if code, _, errs := run(t, args...); code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errs)
		}
	}
	// The value a flag is given is the value used.
	code, out, _ := run(t, "run", "--process", "two-choice", "--bins", "7", "--balls", "8", "--format", "json")
	if rs := decodeJSON(t, out); code != 0 || len(rs) != 1 || rs[0].Bins != 7 {
		t.Errorf("--bins 7: exit %d, %+v", code, rs)
	}
}
