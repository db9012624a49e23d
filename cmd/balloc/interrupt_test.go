package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core"
)

// Ctrl-C during a sweep: exit 130 and one stderr line saying how many
// trials were saved (exactly the lines in results.jsonl) and how to resume;
// the same command then runs only the rest.
//
// 3000 trials, 600 under the race detector (raceOn), which slows each
// some tenfold: the sweep still runs well past the first trial's line.
func TestSweepInterruptSaysSavedAndResume(t *testing.T) {
	trials := 3000
	if raceOn {
		trials = 600
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, fmt.Sprintf("processes = [\"two-choice\"]\nbins = [2000]\nballs_per_bin = [15]\ntrials = %d\nseed = 3\n", trials))
	out := filepath.Join(dir, "s")
	cmd, errs := balloc("sweep", file, "--out", out, "--workers", "1", "--progress", "never")
	p, err := start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(out, "results.jsonl")
	if !p.until(func() bool { b, _ := os.ReadFile(results); return strings.Count(string(b), "\n") >= 1 }) {
		t.Fatalf("the sweep exited without writing a trial: %s", errs)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.wait()
	line := errs.String()
	m := regexp.MustCompile(fmt.Sprintf(`^balloc sweep: interrupted: (\d+) of %d trials saved in (.+) \(0 were there before\); run the same command to resume\n$`, trials)).FindStringSubmatch(line)
	if code := cmd.ProcessState.ExitCode(); code != interruptExit || m == nil || m[2] != results {
		t.Fatalf("interrupted sweep: exit %d, stderr %q; want exit 130 and one line of the trials saved", code, line)
	}
	saved, _ := strconv.Atoi(m[1])
	if n := len(resultLines(t, out)); n != saved || saved == 0 || saved == trials {
		t.Fatalf("the line says %d saved, results.jsonl holds %d", saved, n)
	}
	code, stdout, stderr := run(t, "sweep", file, "--out", out)
	if want := fmt.Sprintf("%d trials run, %d were already there", trials-saved, saved); code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("resume: exit %d, %q %q; want %q", code, stdout, stderr, want)
	}
}

// Ctrl-C during a run: exit 130 and one stderr line saying what was lost;
// with jsonl, the trials it counts are the whole lines written.
func TestRunInterruptSaysWhatWasLost(t *testing.T) {
	cmd, errs := balloc("run", "--process", "two-choice", "--bins", "2000", "--balls", "3e5", "--trials", "5000",
		"--workers", "1", "--progress", "never", "--format", "jsonl")
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		cmd.Process.Kill()
		t.Fatal("the run wrote no trial")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	lines := 1
	for sc.Scan() {
		if !strings.HasSuffix(sc.Text(), "}") {
			t.Errorf("a torn line: %q", sc.Text())
		}
		lines++
	}
	cmd.Wait()
	line := errs.String()
	m := regexp.MustCompile(`^balloc run: interrupted after (\d+) of 5000 trials: the (\d+) above are whole, the rest are lost; the same command reruns them with the same numbers\n$`).FindStringSubmatch(line)
	if code := cmd.ProcessState.ExitCode(); code != interruptExit || m == nil || m[1] != m[2] || m[1] != strconv.Itoa(lines) {
		t.Errorf("interrupted run: exit %d, %d lines, stderr %q; want exit 130 and one line counting them", code, lines, line)
	}
	// The table prints nothing before the end: the line says so.
	if got := interruptedRun(&plan{format: "table", specs: make([]*core.Spec, 2), trials: 3, plot: "x.png"}, 4); got != "balloc run: interrupted after 4 of 6 trials: nothing was printed: the table comes at the end, and no plot was drawn; the same command reruns them with the same numbers" {
		t.Errorf("table: %q", got)
	}
}
