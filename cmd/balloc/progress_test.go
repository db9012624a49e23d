package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLines(&out, 3_000_000_000, "balls", "3 trials", clock.now)
	go l.loop(nil, func() {}) // ticks by hand below, on this goroutine

	clock.t = clock.t.Add(30 * time.Second)
	l.done.Add(1_200_000_000)
	l.tick(clock.t)
	clock.t = clock.t.Add(30 * time.Second)
	l.done.Add(1_200_000_000)
	l.tick(clock.t)
	clock.t = clock.t.Add(15 * time.Second)
	l.done.Add(600_000_000)
	l.stop(true)
	l.stop(true) // a second stop (Clear after an interrupt, then Finish) writes nothing

	want := []string{
		"balloc: 3 trials: 1.2e9 of 3e9 balls (40.0%), 4e7 balls/s, 30s elapsed, about 45s left",
		"balloc: 3 trials: 2.4e9 of 3e9 balls (80.0%), 4e7 balls/s, 1m0s elapsed, about 15s left",
		"balloc: 3 trials: done, 3e9 balls in 1m15s, 4e7 balls/s",
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run shorter than the interval writes nothing, not even a closing line;
// Clear (an interrupt) writes no closing line.
func TestProgressLinesQuiet(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	l := newLines(&out, 100, "trials", "sweep", clock.now)
	go l.loop(nil, func() {})
	l.done.Add(100)
	l.stop(true)
	if out.Len() != 0 {
		t.Errorf("a run shorter than the interval wrote %q", out.String())
	}

	l = newLines(&out, 100, "trials", "sweep", clock.now)
	go l.loop(nil, func() {})
	l.tick(clock.t) // no time has passed: no rate, no estimate
	l.stop(false)
	if got, want := out.String(), "balloc: sweep: 0 of 100 trials (0.0%), 0 trials/s, 0s elapsed, time left unknown\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestApprox(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 12: "12", 999.4: "999.4", 1000: "1e3", 1234: "1.23e3", 9996: "1e4",
		3.14159e8: "3.14e8", 4.5e9: "4.5e9", 18446744073709551615: "1.84e19",
	} {
		if got := approx(x); got != want {
			t.Errorf("approx(%g) = %q, want %q", x, got, want)
		}
	}
}

func TestWantBar(t *testing.T) {
	log := logFile(t) // a file, not a terminal
	for v, want := range map[string]progressForm{"auto": autoProgress, "always": barProgress, "never": noProgress} {
		if got, err := wantBar(v, log); err != nil || got != want {
			t.Errorf("wantBar(%q) on a file = %v, %v; want %v", v, got, err, want)
		}
	}
	if got, _ := wantBar("auto", &bytes.Buffer{}); got != noProgress {
		t.Errorf("wantBar(auto) on a buffer = %v, want none", got)
	}
}

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
	defer func(d time.Duration) { progressLineInterval = d }(progressLineInterval)
	progressLineInterval = time.Millisecond
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
	defer func(d time.Duration) { progressLineInterval = d }(progressLineInterval)
	progressLineInterval = time.Millisecond
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
