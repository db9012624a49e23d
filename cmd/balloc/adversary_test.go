package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/adversary"
)

// TestAdversaryPrintsEachRule: balloc adversary prints, for each rule, the
// means core/adversary computes, and the checkpoints' rows.
func TestAdversaryPrintsEachRule(t *testing.T) {
	code, out, errs := run(t, "adversary", "--builtin", "refill:200", "--bins", "4", "--trials", "20", "--seed", "5", "--checkpoints", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	seq, _ := adversary.Builtin("refill:200")
	at := adversary.CheckpointOps(len(seq.Ops), 3)
	for _, rule := range []adversary.Rule{adversary.Greedy, adversary.Modulated(8), adversary.OneChoice} {
		s := adversary.Run(seq, 4, rule, 5, 20, 1, at)
		want := fmt.Sprintf("%-22s gap at end %s   largest gap %s   overload %s", rule.String(),
			s.Interval(s.FinalGap, s.FinalGapSE), s.Interval(s.MaxGap, s.MaxGapSE), s.Interval(s.Overload, s.OverloadSE))
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"sequence   refill:200 on n = 4 bins: 400 operations, 300 insertions, peak 200 balls present, 200 at the end",
		"gap, greedy", "\n         400  "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestAdversaryRefusesInOneLine: every bad input is one line on stderr,
// exit 2, nothing on stdout; a bad file names its line.
func TestAdversaryRefusesInOneLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.seq")
	if err := os.WriteFile(bad, []byte("+ 4\n- 2\n# fine so far\n- 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.seq")
	if err := os.WriteFile(good, []byte("+ 4\n- 1..4/2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"adversary", "--bins", "4"}
	with := func(extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{with(), "give one of --sequence FILE or --builtin NAME:ARGS"},
		{with("--builtin", "alternate:8", "--sequence", good), "give one of --sequence FILE or --builtin"},
		{[]string{"adversary", "--builtin", "alternate:8"}, "--bins is required"},
		{with("--builtin", "alternate:8", "--bins", "0"), "--bins"},
		{[]string{"adversary", "--builtin", "alternate:8", "--bins", "0"}, `--bins "0": want an integer in [1, 2147483648]`},
		{with("--builtin", "alternate:8", "--trials", "0"), `--trials "0"`},
		{with("--builtin", "alternate:8", "--rules", "greedy,best"), `--rules "greedy,best": "best" is not a rule`},
		{with("--builtin", "alternate:8", "--rules", "greedy,greedy"), "greedy twice"},
		{with("--builtin", "alternate:8", "--rules", "greedy", "--width", "3"), "--width is the modulated rule's"},
		{with("--builtin", "alternate:8", "--width", "0"), `--width "0": want an integer in [1, 1073741824]`},
		{with("--builtin", "alternate:8", "--seed", "-1"), `--seed "-1"`},
		{with("--builtin", "zigzag:8"), `--builtin "zigzag:8": unknown`},
		{with("--builtin", "sliding:8"), `--builtin "sliding:8": want sliding:M,R`},
		{with("--sequence", bad), bad + `:4: "- 2": ball 2 was deleted already`},
		{with("--sequence", filepath.Join(dir, "none.seq")), "none.seq: no such file or directory"},
		{with("--sequence", dir), "not a regular file"},
	} {
		code, out, errs := run(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
	if code, _, errs := run(t, with("--sequence", good, "--trials", "3")...); code != 0 {
		t.Fatalf("a good file: exit %d: %s", code, errs)
	}
}
