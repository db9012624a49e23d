package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/internal/stats"
)

// Special files given as outputs are written in place: a FIFO stays a
// FIFO and a character device a device. The device is a node made in a
// temporary folder with /dev/null's numbers (as root; else only the FIFO
// runs), never the real /dev/null.
func TestOutputsIntoSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	got := make(chan int)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- -1
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- len(b)
	}()
	base := []string{"run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--progress", "never"}
	if code, _, errs := run(t, append(base, "--cpuprofile", fifo)...); code != 0 {
		t.Fatalf("--cpuprofile FIFO: exit %d %s", code, errs)
	}
	if n := <-got; n <= 0 {
		t.Errorf("the FIFO's reader got %d bytes of profile", n)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no device node (%v): only the FIFO was tried", err)
		return
	}
	for _, flag := range []string{"--cpuprofile", "--memprofile", "--trace"} {
		if code, _, errs := run(t, append(base, flag, null)...); code != 0 {
			t.Errorf("%s DEVICE: exit %d %s", flag, code, errs)
		}
		if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("after %s the device is %v (%v)", flag, fi.Mode(), err)
		}
	}
	if code, _, errs := run(t, append(base, "--plot", null+".png", "--plot-kind", "gap-distribution")...); code != 0 {
		t.Errorf("--plot: exit %d %s", code, errs)
	}
}

// --force replaces an existing output whole, keeping its permissions.
func TestForceReplacesOutput(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "r.png")
	writeFile(t, png, "old")
	if err := os.Chmod(png, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--progress", "never", "--plot", png, "--plot-kind", "gap-distribution"}
	if code, _, errs := run(t, args...); code != 2 || !strings.Contains(errs, "--force") {
		t.Errorf("without --force: exit %d %q", code, errs)
	}
	if code, _, errs := run(t, append(args, "--force")...); code != 0 {
		t.Fatalf("with --force: exit %d %s", code, errs)
	}
	b, _ := os.ReadFile(png)
	fi, _ := os.Stat(png)
	if !strings.HasPrefix(string(b), "\x89PNG") || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file: %.8q, mode %v", b, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the folder holds %d entries, want the plot alone", len(ents))
	}
}

// run --plot --log-y where some gap is 0: the table is out, so the plot is
// drawn with a linear y axis and says so, exit 0 — not exit 2 after the
// work.
func TestRunPlotLogYFallsBack(t *testing.T) {
	png := filepath.Join(t.TempDir(), "a.png")
	// One bin: every gap is 0.
	code, out, errs := run(t, "run", "--process", "one-choice", "--bins", "1", "--balls", "8", "--trials", "2", "--checkpoints", "2",
		"--plot", png, "--log-y", "--progress", "never")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "plot: "+png+" (drawn with a linear y axis:") {
		t.Errorf("stdout does not say the y axis fell back to linear:\n%s", out)
	}
	if _, err := os.Stat(png); err != nil {
		t.Error(err)
	}
	// plot, which has done no work yet, still refuses in one line.
	sw := makeSweep(t, "processes = [\"one-choice\"]\nbins = [1]\nballs = [8]\ntrials = 2\ncheckpoints = 2\n")
	if code, _, errs := run(t, "plot", sw, "--kind", "gap-vs-balls", "--log-y", "--out", png+"2.png"); code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--log-y") {
		t.Errorf("plot --log-y with a zero gap: exit %d %q", code, errs)
	}
}

// Gaps near 1e154 once made an infinite interval, and the plot's tick
// search spun forever on it. Each command must end, and the interval be
// finite.
func TestPlotHugeGapsEnds(t *testing.T) {
	dir := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, _, errs := run(t, "run", "--process", "one-choice", "--weights", "const:1e154", "--bins", "4", "--balls", "64", "--trials", "3",
			"--plot", filepath.Join(dir, "r.png"), "--plot-kind", "gap-vs-bins", "--progress", "never")
		if code != 0 {
			t.Errorf("run: exit %d %s", code, errs)
		}
		sw := makeSweep(t, "processes = [\"one-choice\"]\nbins = [4, 8]\nballs_per_bin = [16]\ntrials = 3\n[params]\nweights = [\"const:1e154\", \"const:1e200\"]\n")
		for _, kind := range []string{"gap-vs-bins", "gap-vs-param"} {
			args := []string{"plot", sw, "--kind", kind, "--out", filepath.Join(dir, kind+".png")}
			if kind == "gap-vs-param" {
				args = append(args, "--x", "bins")
			}
			if code, _, errs := run(t, args...); code != 0 {
				t.Errorf("plot --kind %s: exit %d %s", kind, code, errs)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang, not a timing: the work is milliseconds
		t.Fatal("the plot of gaps near 1e154 did not end")
	}
	if m, half := stats.MeanCI([]float64{2e154, 2e154, 5e154}); !(half > 0 && half < 1e156) || m != 3e154 {
		t.Errorf("meanCI of gaps near 1e154: %g ± %g", m, half)
	}
	var st result.Stream
	for _, x := range []float64{2e154, 2e154, 5e154} {
		st.Add(x)
	}
	if m, half := st.CI(); !(half > 0 && half < 1e156) || m != 3e154 {
		t.Errorf("the table's interval of gaps near 1e154: %g ± %g", m, half)
	}
	// Scaling is by a power of two: ordinary values give the same bits.
	xs := []float64{1, 2, 4.5, 7}
	m, half := stats.MeanCI(xs)
	if m != 3.625 || half <= 0 {
		t.Errorf("stats.MeanCI(%v) = %v ± %v", xs, m, half)
	}
}

// slurm --tasks 100000: the merge job's command line stays short (the
// shard folders are a pattern merge expands), and merge over the pattern
// merges the shards a sweep wrote.
func TestSlurmManyTasksMergeLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, "processes = [\"two-choice\"]\nbins = [4]\nballs = [8]\ntrials = 3\n")
	out := filepath.Join(dir, "s")
	if code, _, errs := run(t, "slurm", file, "--tasks", "100000", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	merge, err := os.ReadFile(filepath.Join(out, "slurm", "merge.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(merge), "\n") {
		if len(line) > 4096 {
			t.Errorf("merge.sbatch has a line of %d bytes (100000 tasks once made 2.6 MB)", len(line))
		}
	}
	// Three of the shards, run as the array would, merged by the pattern.
	for i := range 3 {
		t.Setenv("SLURM_ARRAY_TASK_ID", "")
		if code, _, errs := run(t, "sweep", file, "--out", filepath.Join(out, "shard-"+string(rune('0'+i))), "--shard", string(rune('0'+i))+"/3", "--progress", "never"); code != 0 {
			t.Fatal(errs)
		}
	}
	code, stdout, errs := run(t, "merge", sweep.GlobEscape(out)+"/shard-*", "--out", filepath.Join(out, "merged"))
	if code != 0 || !strings.Contains(stdout, "3 of 3 trials from 3 folders") {
		t.Errorf("merge over the pattern: exit %d %q %q", code, stdout, errs)
	}
	if code, _, errs := run(t, "merge", filepath.Join(dir, "none-*"), "--out", filepath.Join(dir, "m2")); code != 2 || !strings.Contains(errs, "no folder matches") {
		t.Errorf("a pattern matching nothing: exit %d %q", code, errs)
	}
}

// A 0 for the stale-load settings means fresh loads on the command line as
// in a sweep file: the same point.
func TestUpdatePeriodZeroSameRule(t *testing.T) {
	base := []string{"run", "--process", "two-choice", "--bins", "8", "--arrival-rate", "0.5", "--time", "4", "--format", "json", "--progress", "never"}
	_, fresh, _ := run(t, base...)
	for _, flag := range []string{"--update-period", "--update-delay", "--update-individual"} {
		code, out, errs := run(t, append(base, flag, "0")...)
		if code != 0 {
			t.Errorf("%s 0: exit %d %s", flag, code, errs)
			continue
		}
		var a, b []map[string]any
		if json.Unmarshal([]byte(fresh), &a) != nil || json.Unmarshal([]byte(out), &b) != nil || len(a) != 1 || len(b) != 1 || a[0]["gap"] != b[0]["gap"] {
			t.Errorf("%s 0 is not the fresh-loads run", flag)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, "processes = [\"two-choice\"]\nbins = [8]\narrival_rate = 0.5\ntime = 4\nupdate_period = 0\n")
	if code, _, errs := run(t, "sweep", file, "--progress", "never"); code != 0 {
		t.Errorf("update_period = 0 in a sweep file: exit %d %s", code, errs)
	}
}
