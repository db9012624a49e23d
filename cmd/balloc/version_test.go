package main

import (
	"runtime/debug"
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

// The commit comes from the linker flag, else the build info: vcs.revision
// (-dirty when modified), else the commit in a pseudo-version, else a
// release version.
func TestCommitOf(t *testing.T) {
	rev := "348e45682ef048c8a77fb157f332643c76ad1271"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	info := func(version string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/balloc/balloc", Version: version}, Settings: s}
	}
	for _, c := range []struct {
		ldflag string
		bi     *debug.BuildInfo
		want   string
	}{
		{"abc", info("(devel)", vcs("false")), "abc"},
		{"", nil, "unknown"},
		{"", info("(devel)", nil), "unknown"},
		{"", info("(devel)", vcs("false")), rev},
		{"", info("v0.0.0-20261203083000-348e45682ef0+dirty", vcs("true")), rev + "-dirty"},
		{"", info("v0.0.0-20261203083000-348e45682ef0", nil), "348e45682ef0"},
		{"", info("v0.3.1-0.20261203083000-348e45682ef0", nil), "348e45682ef0"},
		{"", info("v0.4.0-rc.1.0.20261203083000-348e45682ef0+incompatible", nil), "348e45682ef0"},
		{"", info("v0.3.0", nil), "v0.3.0"},
		{"", info("v0.3.0-20261203083000-348e45682ef", nil), "v0.3.0-20261203083000-348e45682ef"}, // 11 digits: not a pseudo-version
	} {
		if got := commitOf(c.ldflag, c.bi); got != c.want {
			t.Errorf("commitOf(%q, %v) = %q, want %q", c.ldflag, c.bi, got, c.want)
		}
	}
}
