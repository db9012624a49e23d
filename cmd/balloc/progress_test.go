package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/balloc/balloc/internal/progress"
)

// logFile is a file to pass as stderr, as a Slurm log is.
func logFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readLog is what was written to f.
func readLog(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// balloc run with stderr a file (not a terminal) writes progress lines there (here
// every millisecond rather than 30 s) and nothing else changes: stdout is
// the same as with --progress never.
func TestRunProgressLinesInLog(t *testing.T) {
	defer func(d time.Duration) { progress.LineInterval = d }(progress.LineInterval)
	progress.LineInterval = time.Millisecond
	args := []string{"run", "--process", "one-choice", "--bins", "1e3", "--balls", "2e7", "--trials", "2", "--workers", "1", "--engine", "direct", "--format", "jsonl"}
	var out, quiet bytes.Buffer
	log := logFile(t)
	code := Main(args, &out, log)
	errs := readLog(t, log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code := Main(append(args, "--progress", "never"), &quiet, &bytes.Buffer{}); code != 0 {
		t.Fatal("--progress never failed")
	}
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "balloc: 2 trials: ") || !strings.Contains(lines[0], " of 4e7 balls (") ||
		!strings.HasPrefix(lines[len(lines)-1], "balloc: 2 trials: done, 4e7 balls in ") {
		t.Errorf("stderr:\n%s", errs)
	}
	strip := func(s string) string { // timings differ between runs
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if i := strings.Index(l, `"elapsed_s"`); i >= 0 {
				l = l[:i]
			}
			keep = append(keep, l)
		}
		return strings.Join(keep, "\n")
	}
	if strip(out.String()) != strip(quiet.String()) {
		t.Error("stdout differs with progress lines on stderr")
	}
}

// A sweep writes its lines in trials.
func TestSweepProgressLinesInLog(t *testing.T) {
	defer func(d time.Duration) { progress.LineInterval = d }(progress.LineInterval)
	progress.LineInterval = time.Millisecond
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, "processes = [\"one-choice\"]\nbins = [1000]\nballs = [\"1e7\"]\ntrials = 4\nengine = \"direct\"\n")
	log := logFile(t)
	code := Main([]string{"sweep", file, "--out", filepath.Join(dir, "out"), "--workers", "1"}, &bytes.Buffer{}, log)
	errs := readLog(t, log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "balloc: sweep: ") || !strings.Contains(lines[0], " of 4 trials (") ||
		!strings.HasPrefix(lines[len(lines)-1], "balloc: sweep: done, 4 trials in ") {
		t.Errorf("stderr:\n%s", errs)
	}
}
