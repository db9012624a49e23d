package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --initial in the supermarket model from the command line: the starts it
// takes print where the run starts in the header line, and the ones it
// cannot run are one stderr line naming --initial, exit 2, nothing on
// stdout (badinput_test.go has the flag's malformed values).
func TestSupermarketInitialFromTheCommandLine(t *testing.T) {
	sm := []string{"run", "--process", "two-choice", "--bins", "100", "--arrival-rate", "0.9", "--time", "2", "--progress", "never"}
	with := func(base []string, extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{with(sm, "--initial", "fixed-point"), "from the fixed point (--initial fixed-point"},
		{with(sm, "--initial", "fixed-point", "--engine", "direct"), "from the fixed point"},
		{with(sm, "--initial", "uniform:3"), "events from --initial uniform:3,"},
		{with(sm), "events from empty,"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("%q: exit %d, stderr %q; stdout lacks %q:\n%s", c.args, code, stderr, c.want, stdout)
		}
	}
	static := []string{"run", "--process", "two-choice", "--bins", "100", "--balls", "1000", "--progress", "never"}
	dir := t.TempDir()
	file := filepath.Join(dir, "loads")
	if err := os.WriteFile(file, []byte("1\n2000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		with(static, "--initial", "fixed-point"),
		with(static, "--delete-prob", "0.2", "--initial", "fixed-point"),
		with(static, "--delete-prob", "0.2", "--initial", "uniform:1"),
		with(sm, "--initial", "fixed-point", "--update-period", "1", "--engine", "direct"),
		with(sm, "--initial", "fixed-point", "--update-delay", "1"),
		with(sm, "--initial", "fixed-point", "--update-individual", "1"),
		with(sm, "--initial", "spike:2000000"),
		{"run", "--process", "one-choice", "--arrival-rate", "0.9", "--time", "2", "--progress", "never", "--initial", "file:" + file},
		{"run", "--process", "one-choice", "--bins", "100", "--arrival-rate", "0.99999", "--time", "2", "--progress", "never", "--initial", "fixed-point"},
		{"run", "--process", "rbb", "--bins", "100", "--balls", "1000", "--rounds", "3", "--progress", "never", "--initial", "fixed-point"},
	} {
		code, stdout, stderr := run(t, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--initial") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want exit 2 and one line naming --initial", args, code, stdout, stderr)
		}
	}
}
