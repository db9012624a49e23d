package main

import (
	"strings"
	"testing"
)

// version, --version and info print the same line: the release and the commit.
func TestVersionCommandFlagAndInfo(t *testing.T) {
	want := "balloc " + Version + " (commit "
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := run(t, args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line starting %q", args, code, out, errOut, want)
		}
	}
	if _, out, _ := run(t, "info"); !strings.HasPrefix(out, "version      "+want) {
		t.Errorf("info does not open with the version line:\n%s", out)
	}
	if code, _, errOut := run(t, "version", "extra"); code != 2 || !strings.Contains(errOut, "balloc version") {
		t.Errorf("version extra: exit %d, stderr %q", code, errOut)
	}
}

// Each shell's script is printed, and the requests the scripts make go
// through the strict flags (which refuse a flag given twice: cobra parses
// the typed flags more than once while completing).
func TestCompletionScriptsAndRequests(t *testing.T) {
	for shell, mark := range map[string]string{"bash": "__start_balloc", "zsh": "#compdef balloc", "fish": "complete -c balloc"} {
		code, out, errOut := run(t, "completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, mark) || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d, stderr %q, script lacks %q or __complete", shell, code, errOut, mark)
		}
	}
	code, _, errOut := run(t, "completion", "tcsh")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `"tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "run", "--process", "two-ch"}, "two-choice\t"},
		{[]string{"__complete", "run", "--process", "two-choice,g-my"}, "two-choice,g-myopic-comp\t"},
		{[]string{"__complete", "run", "--process", "two-choice", "--bins", "4", "--ba"}, "--balls"},
		{[]string{"__complete", "comp"}, "completion"},
		{[]string{"__complete", "completion", ""}, "zsh"},
	} {
		code, out, _ := run(t, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, completions %q lack %q", c.args, code, out, c.want)
		}
	}
}
