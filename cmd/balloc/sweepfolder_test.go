package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
)

// oneLineExit2 fails t unless a command exited 2 with one stderr line
// holding want and nothing on stdout.
func oneLineExit2(t *testing.T, what string, code int, out, errs, want string) {
	t.Helper()
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, want) {
		t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", what, code, out, errs, want)
	}
}

// balloc starts the test binary as balloc (see TestMain).
func balloc(args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "BALLOC_MAIN=1")
	var errs bytes.Buffer
	cmd.Stderr = &errs
	return cmd, &errs
}

// A sweep slow enough (a second or so with one worker) for a second run to
// start while the first holds the folder.
const slowSweep = "processes = [\"two-choice\"]\nbins = [20000]\nballs_per_bin = [150]\ntrials = 80\nseed = 3\n"

// Two sweep processes on one folder: the second is refused with one line
// naming the first (its pid), and the first's results are exactly those of
// a sweep run alone. Started at the same instant, one runs and one is
// refused, and the folder is whole.
func TestSweepTwoProcessesOneFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, slowSweep)
	alone := filepath.Join(dir, "alone")
	if code, _, errs := run(t, "sweep", file, "--out", alone); code != 0 {
		t.Fatal(errs)
	}
	want := resultLines(t, alone)

	shared := filepath.Join(dir, "shared")
	first, firstErr := balloc("sweep", file, "--out", shared, "--workers", "1", "--progress", "never")
	p, err := start(first)
	if err != nil {
		t.Fatal(err)
	}
	if !p.until(func() bool {
		b, _ := os.ReadFile(filepath.Join(shared, sweep.LockName))
		return strings.Contains(string(b), fmt.Sprintf("pid %d ", first.Process.Pid))
	}) {
		t.Fatalf("the first sweep exited without taking the lock: %s", firstErr)
	}
	code, out, errs := run(t, "sweep", file, "--out", shared)
	oneLineExit2(t, "a second sweep on a held folder", code, out, errs, fmt.Sprintf("is in use by balloc sweep, pid %d on", first.Process.Pid))
	if err := p.wait(); err != nil {
		t.Fatalf("the first sweep: %v %s", err, firstErr)
	}
	if got := resultLines(t, shared); !slices.Equal(got, want) {
		t.Errorf("the folder two sweeps shared holds %d results, not those of a sweep run alone", len(got))
	}

	// At the same instant, as two processes.
	same := filepath.Join(dir, "same")
	a, aErr := balloc("sweep", file, "--out", same, "--workers", "1", "--progress", "never")
	b, bErr := balloc("sweep", file, "--out", same, "--workers", "1", "--progress", "never")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	ea, eb := a.Wait(), b.Wait()
	codes := []int{a.ProcessState.ExitCode(), b.ProcessState.ExitCode()}
	refused := aErr.String() + bErr.String()
	if slices.Sort(codes); !slices.Equal(codes, []int{0, 2}) || strings.Count(refused, "\n") != 1 || !strings.Contains(refused, "is in use by balloc sweep") {
		t.Errorf("two sweeps started together: exits %v (%v, %v), stderr %q; want one to run and one refused in one line", codes, ea, eb, refused)
	}
	if got := resultLines(t, same); !slices.Equal(got, want) {
		t.Errorf("two sweeps started together left %d results, not those of a sweep run alone", len(got))
	}
	if _, err := sweep.ReadManifest(same); err != nil {
		t.Errorf("two sweeps started together: manifest: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(same, "*.tmp")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// merge --out refuses a folder holding another sweep or other files, and
// leaves it as it was; an empty folder, a new one or one holding the same
// sweep (an earlier merge, whose results are kept) is fine.
func TestMergeIntoForeignFolder(t *testing.T) {
	dir := t.TempDir()
	file, other := filepath.Join(dir, "s.toml"), filepath.Join(dir, "o.toml")
	writeFile(t, file, smallSweep)
	writeFile(t, other, "processes = [\"one-choice\"]\nbins = [10]\nballs = [10]\ntrials = 3\n")
	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, d)
		if code, _, errs := run(t, "sweep", file, "--out", d, "--shard", fmt.Sprintf("%d/2", i)); code != 0 {
			t.Fatal(errs)
		}
	}
	foreign := filepath.Join(dir, "other")
	if code, _, errs := run(t, "sweep", other, "--out", foreign); code != 0 {
		t.Fatal(errs)
	}
	before, _ := os.ReadFile(filepath.Join(foreign, "results.jsonl"))
	code, out, errs := run(t, "merge", shards[0], shards[1], "--out", foreign)
	oneLineExit2(t, "merge into a folder of another sweep", code, out, errs, "--out "+foreign+" holds another sweep")
	if after, _ := os.ReadFile(filepath.Join(foreign, "results.jsonl")); !bytes.Equal(before, after) {
		t.Error("merge changed the results of the folder it refused")
	}
	papers := filepath.Join(dir, "papers")
	os.MkdirAll(papers, 0o755)
	writeFile(t, filepath.Join(papers, "draft.tex"), "\\section{}")
	code, out, errs = run(t, "merge", shards[0], shards[1], "--out", papers)
	oneLineExit2(t, "merge into a folder of other files", code, out, errs, "is not empty (it holds draft.tex)")

	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	if code, _, errs := run(t, "merge", shards[0], shards[1], "--out", empty); code != 0 {
		t.Errorf("merge into an empty folder: exit %d %s", code, errs)
	}
	// Shard 0 merged alone, then shard 1 into the same folder: both kept.
	step := filepath.Join(dir, "step")
	if code, _, _ := run(t, "merge", shards[0], "--out", step); code != 1 {
		t.Errorf("merge of one shard of two: exit %d, want 1 (trials missing)", code)
	}
	if code, _, errs := run(t, "merge", shards[1], "--out", step); code != 0 {
		t.Errorf("merge of the other shard into the first's merge: exit %d %s", code, errs)
	}
	if !slices.Equal(resultLines(t, step), resultLines(t, empty)) {
		t.Error("merging shard by shard into one folder lost results")
	}
}

// Two spellings of one grid point, or a value listed twice, are refused in
// one line naming the key, as the command line refuses `--g 1,1`.
func TestSweepDuplicateGridValues(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"processes = [\"two-choice\",\"two-choice\"]\nbins = [10]\nballs = [10]\n", "s.toml:1: processes: lists two-choice twice"},
		{"processes = [\"two-choice\"]\nbins = [\"1e2\", 100]\nballs = [10]\n", `s.toml:2: bins: lists 100 twice ("1e2" and "100" are one value)`},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100, \"10^2\"]\n", `s.toml:3: balls: lists 10^2 twice ("100" and "10^2" are one value)`},
		{"processes = [\"g-myopic-comp\"]\nbins = [10]\nballs = [10]\n[params]\ng = [1, 1.0]\n", "s.toml:5: params.g: lists 1 twice"},
		{"processes = [\"g-myopic-comp\"]\nbins = [10]\nballs = [10]\n[params]\ng = [1, \"1e0\"]\n", `s.toml:5: params.g: lists 1e0 twice ("1" and "1e0" are one value)`},
		{"processes = [\"one-plus-beta\"]\nbins = [10]\nballs = [10]\n[params]\nbeta = [0.5, \"0.50\"]\n", `s.toml:5: params.beta: lists 0.50 twice`},
	} {
		file := filepath.Join(dir, "s.toml")
		writeFile(t, file, c.text)
		code, out, errs := run(t, "sweep", file, "--out", filepath.Join(dir, "out"))
		oneLineExit2(t, c.text, code, out, errs, c.want)
	}
}

// A repeated line counts once, a line of another sweep or beyond the trials
// is ignored with one warning, in summarize, merge and a resumed sweep; two
// different results for one trial are refused naming the file and lines.
func TestSweepDuplicateAndForeignLines(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, "processes = [\"two-choice\"]\nbins = [100]\nballs = [1000]\ntrials = 4\n")
	sw := filepath.Join(dir, "s")
	if code, _, errs := run(t, "sweep", file, "--out", sw); code != 0 {
		t.Fatal(errs)
	}
	want := resultLines(t, sw)
	path := filepath.Join(sw, "results.jsonl")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	beyond := strings.Replace(lines[0], `"trial":0`, `"trial":9`, 1)
	alien := regexp.MustCompile(`"spec_hash":"[0-9a-f]+"`).ReplaceAllString(lines[1], `"spec_hash":"00000000000000ff"`)
	writeFile(t, path, string(data)+lines[2]+beyond+alien)

	code, out, errs := run(t, "summarize", sw, "--format", "csv")
	if code != 0 || !strings.Contains(out, ",1000,4,4,") || errs != "balloc summarize: "+path+": 2 lines are not trials of this sweep's grid (another sweep's, or beyond its trials); they are ignored\n" {
		t.Errorf("summarize with a repeated and two foreign lines: exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = run(t, "sweep", file, "--out", sw)
	if code != 0 || !strings.Contains(out, "0 trials run, 4 were already there") || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "2 lines are not trials") {
		t.Errorf("resume over a repeated and two foreign lines: exit %d, %q %q", code, out, errs)
	}
	merged := filepath.Join(dir, "merged")
	code, out, errs = run(t, "merge", sw, "--out", merged)
	if code != 0 || !strings.Contains(out, "4 of 4 trials from 1 folders; 1 duplicated") || strings.Count(errs, "\n") != 1 {
		t.Errorf("merge of a repeated and two foreign lines: exit %d, %q %q", code, out, errs)
	}
	if !slices.Equal(resultLines(t, merged), want) {
		t.Error("merge copied a foreign or repeated line")
	}

	// A second, different result for trial 2.
	forged := regexp.MustCompile(`"gap":[0-9.e+-]+`).ReplaceAllString(lines[2], `"gap":1000`)
	writeFile(t, path, string(data)+forged)
	wantErr := fmt.Sprintf("%s: lines 3 and 5 hold different results for trial 2 of two-choice d=2 n=100 m=1000", path)
	for _, args := range [][]string{{"summarize", sw}, {"sweep", file, "--out", sw}, {"plot", sw, "--kind", "gap-distribution", "--out", filepath.Join(dir, "p.png")}} {
		code, out, errs := run(t, args...)
		oneLineExit2(t, args[0]+" over a conflicting copy", code, out, errs, wantErr)
	}
	code, out, errs = run(t, "merge", sw, "--out", filepath.Join(dir, "m2"))
	oneLineExit2(t, "merge over a conflicting copy", code, out, errs, wantErr)
}

// Raising trials or adding a value and rerunning runs only the new trials,
// keeps the old lines as they were, and ends with exactly the results of
// the larger sweep run at once; sharded too. A changed grid point, a value
// removed or fewer trials are refused in one line.
func TestSweepExtends(t *testing.T) {
	dir := t.TempDir()
	base := "processes = [\"two-choice\", \"g-myopic-comp\"]\nballs_per_bin = [50]\nseed = 5\n"
	const params = "[params]\ng = [1]\n"
	small := base + "bins = [100]\ntrials = 3\n" + params
	large := base + "bins = [100, 300]\ntrials = 5\n" + params
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, large)
	whole := filepath.Join(dir, "whole")
	if code, _, errs := run(t, "sweep", file, "--out", whole); code != 0 {
		t.Fatal(errs)
	}
	want := resultLines(t, whole)

	grown := filepath.Join(dir, "grown")
	writeFile(t, file, small)
	if code, _, errs := run(t, "sweep", file, "--out", grown); code != 0 {
		t.Fatal(errs)
	}
	old, _ := os.ReadFile(filepath.Join(grown, "results.jsonl"))
	writeFile(t, file, base+"bins = [100]\ntrials = 5\n"+params)
	code, out, errs := run(t, "sweep", file, "--out", grown)
	if code != 0 || !strings.Contains(out, "4 trials run, 6 were already there; 2 grid points") {
		t.Fatalf("trials 3 → 5: exit %d %q %q", code, out, errs)
	}
	writeFile(t, file, large)
	code, out, errs = run(t, "sweep", file, "--out", grown)
	if code != 0 || !strings.Contains(out, "10 trials run, 10 were already there; 4 grid points") {
		t.Fatalf("bins [100] → [100, 300]: exit %d %q %q", code, out, errs)
	}
	if now, _ := os.ReadFile(filepath.Join(grown, "results.jsonl")); !bytes.HasPrefix(now, old) {
		t.Error("extending the sweep changed the lines already there")
	}
	if !slices.Equal(resultLines(t, grown), want) {
		t.Error("the sweep grown in two steps differs from the larger sweep run at once")
	}
	man, err := sweep.ReadManifest(grown)
	if err != nil || len(man.Grid) != 4 || man.Source != large {
		t.Errorf("the grown sweep's manifest: %v, %d grid points", err, len(man.Grid))
	}

	for _, c := range []struct{ text, want string }{
		{strings.Replace(large, "seed = 5", "seed = 6", 1), "holds results of a different sweep: its grid point two-choice d=2 n=100 m=5000"},
		{base + "bins = [300]\ntrials = 5\n" + params, "holds results of a different sweep: its grid point two-choice d=2 n=100 m=5000"},
		{base + "bins = [100, 300]\ntrials = 4\n" + params, "holds 5 trials of two-choice d=2 n=100 m=5000"},
	} {
		writeFile(t, file, c.text)
		code, out, errs := run(t, "sweep", file, "--out", grown)
		oneLineExit2(t, c.text, code, out, errs, c.want)
	}
	if !slices.Equal(resultLines(t, grown), want) {
		t.Error("a refused sweep changed the folder")
	}

	// Sharded: each shard grows by its share of the new trials, none runs
	// a trial another shard ran, and the merge is the larger sweep.
	var shards []string
	for _, text := range []string{small, large} {
		writeFile(t, file, text)
		shards = shards[:0]
		for i := range 3 {
			d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
			shards = append(shards, d)
			if code, _, errs := run(t, "sweep", file, "--out", d, "--shard", fmt.Sprintf("%d/3", i)); code != 0 {
				t.Fatal(errs)
			}
		}
	}
	code, out, errs = run(t, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "merged"))...)
	if code != 0 || !strings.Contains(out, "20 of 20 trials from 3 folders; 0 duplicated") {
		t.Errorf("merge of grown shards: exit %d %q %q", code, out, errs)
	}
	if !slices.Equal(resultLines(t, filepath.Join(dir, "merged")), want) {
		t.Error("the grown shards merged differ from the larger sweep")
	}
}

// failAfter appends through a real results writer until its budget of
// lines is spent, then fails as a full disk does.
type failAfter struct {
	rw   *sweep.ResultsWriter
	left int
}

func (f *failAfter) Write(r *result.Result) error {
	if f.left == 0 {
		return fmt.Errorf("write results.jsonl: %w", syscall.ENOSPC)
	}
	f.left--
	return f.rw.Write(r)
}

func (f *failAfter) Close() error { return f.rw.Close() }

// failureSeen records how many trials had started when a write first failed.
type failureSeen struct {
	resultAppender
	ran *atomic.Int64
	at  int64
}

func (f *failureSeen) Write(r *result.Result) error {
	err := f.resultAppender.Write(r)
	if err != nil && f.at < 0 {
		f.at = f.ran.Load()
	}
	return err
}

// On a full disk a sweep stops at the first failed write: no trial starts
// after it (those running finish), the lines written stay valid, one line
// says so and the exit is 1; run again, it resumes. Both with a writer that
// fails after three lines and with /dev/full as the results file.
func TestSweepStopsAtFirstFailedWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	const trials = 400
	writeFile(t, file, fmt.Sprintf("processes = [\"two-choice\"]\nbins = [1000]\nballs_per_bin = [100]\ntrials = %d\n", trials))
	whole := filepath.Join(dir, "whole")
	if code, _, errs := run(t, "sweep", file, "--out", whole); code != 0 {
		t.Fatal(errs)
	}
	const workers = 2
	for _, c := range []struct {
		name    string
		open    func(path string, valid int64) (resultAppender, error)
		written int
	}{
		{"a writer failing after 3 lines", func(path string, valid int64) (resultAppender, error) {
			rw, err := sweep.AppendResults(path, valid)
			return &failAfter{rw: rw, left: 3}, err
		}, 3},
		{"/dev/full", func(_ string, valid int64) (resultAppender, error) { return sweep.AppendResults("/dev/full", valid) }, 0},
	} {
		out := filepath.Join(dir, "full-"+fmt.Sprint(c.written))
		var ran atomic.Int64
		seen := &failureSeen{ran: &ran, at: -1}
		deps := sweepDeps{
			open: func(path string, valid int64) (resultAppender, error) {
				w, err := c.open(path, valid)
				seen.resultAppender = w
				return seen, err
			},
			trial: func(s *core.Spec, t uint64) *result.Result {
				ran.Add(1)
				return engine.RunTrial(s, t, nil)
			},
		}
		var stdout, stderr bytes.Buffer
		err := runSweep(file, sweepFlags{out: out, workers: fmt.Sprint(workers), progress: "never"}, &stdout, &stderr, deps)
		var f failure
		if err == nil || !errors.As(err, &f) || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), fmt.Sprintf("stopped after %d of %d trials", c.written, trials)) {
			t.Errorf("%s: error %v; want one line, exit 1, saying the write failed and the sweep stopped after %d", c.name, err, c.written)
		}
		// Each worker may have been starting a trial as the write failed.
		if n := ran.Load(); seen.at < 0 || n > seen.at+workers || n == trials {
			t.Errorf("%s: %d trials had started when the write failed, %d when the sweep ended, of %d", c.name, seen.at, n, trials)
		}
		if got := resultLines(t, out); len(got) != c.written {
			t.Errorf("%s: %d valid lines, want %d", c.name, len(got), c.written)
		}
		if code, _, errs := run(t, "sweep", file, "--out", out); code != 0 || !slices.Equal(resultLines(t, out), resultLines(t, whole)) {
			t.Errorf("%s: the resumed sweep: exit %d %s, or results differ", c.name, code, errs)
		}
	}
}

// Sweep files: numbers exactly as written, no empty strings, a size bound.
func TestSweepFileNumbersAndStrings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	head := "processes = [\"two-choice\"]\nbins = [100]\nballs = [1000]\n"
	for _, c := range []struct{ text, want string }{
		{head + "seed = 1.0000000000000000001\n", `s.toml:4: seed: "1.0000000000000000001" is not an integer`},
		{head + "seed = 2.5\n", `s.toml:4: seed: "2.5" is not an integer`},
		{head + "trials = 1e20\n", `s.toml:4: trials: "1e+20" is too large`},
		{head + "trials = 100000000000000000001.0\n", `s.toml:4: trials: "100000000000000000001" is too large`},
		{head + "engine = \"\"\n", `s.toml:4: engine: empty value "": leave the key out for its default`},
		{"processes = [\"two-choice\", \" \"]\nbins = [100]\nballs = [1000]\n", `s.toml:1: processes: empty value " "`},
		{"processes = [\"graphical\"]\nballs = [10]\n[params]\ngraph = \"\"\n", `s.toml:4: params.graph: empty value ""`},
	} {
		writeFile(t, file, c.text)
		code, out, errs := run(t, "sweep", file, "--out", filepath.Join(dir, "out"))
		oneLineExit2(t, c.text, code, out, errs, c.want)
	}
	// 2^53 + 1 written as a float runs with that seed, not 2^53.
	writeFile(t, file, head+"seed = 9007199254740993.0\ntrials = 2.0\ncheckpoints = [\n  1e1, # a comment, and the list on lines of its own\n]\n")
	sw := filepath.Join(dir, "exact")
	if code, _, errs := run(t, "sweep", file, "--out", sw); code != 0 {
		t.Fatal(errs)
	}
	recs, _, _, _ := sweep.ReadResults(filepath.Join(sw, "results.jsonl"))
	if len(recs) != 2 || recs[0].Seed != 9007199254740993 || len(recs[0].Checkpoints) != 10 {
		t.Errorf("seed = 9007199254740993.0: %d results, seed %d", len(recs), recs[0].Seed)
	}

	big := filepath.Join(dir, "big.toml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(sweep.MaxGridFile + 1)
	f.Close()
	code, out, errs := run(t, "sweep", big, "--out", filepath.Join(dir, "big"))
	oneLineExit2(t, "a 16 MiB + 1 sweep file", code, out, errs, "big.toml: more than the 16 MiB a sweep file may hold")
}

// A file a sweep names is found beside the sweep file, whatever the working
// directory, and its content is in the spec hash: edited between two runs,
// the second is refused rather than mixing two graphs under one hash.
func TestSweepFilesBesideTOMLAndInHash(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	writeFile(t, filepath.Join(sub, "g.txt"), "0 1\n1 2\n2 3\n3 0\n")
	writeFile(t, filepath.Join(sub, "ages.txt"), "0 1\n3 2\n")
	file := filepath.Join(sub, "s.toml")
	writeFile(t, file, "processes = [\"graphical\"]\nballs_per_bin = [10]\ntrials = 2\n[params]\ngraph = \"file:g.txt\"\n")
	agesFile := filepath.Join(sub, "a.toml")
	writeFile(t, agesFile, "processes = [\"tau-delay\"]\nbins = [50]\nballs = [500]\ntrials = 2\n[params]\ndelay = \"empirical\"\nages = \"ages.txt\"\n")
	for _, c := range []struct{ toml, data, edit string }{
		{file, "g.txt", "0 1\n1 2\n2 3\n3 0\n0 2\n"},
		{agesFile, "ages.txt", "0 1\n3 3\n"},
	} {
		out := filepath.Join(dir, "out-"+c.data)
		if code, _, errs := run(t, "sweep", c.toml, "--out", out); code != 0 {
			t.Fatalf("%s beside the sweep file (the working directory is elsewhere): exit %d %s", c.data, code, errs)
		}
		if code, out, errs := run(t, "sweep", c.toml, "--out", out); code != 0 || !strings.Contains(out, "0 trials run, 2 were already there") {
			t.Errorf("%s unchanged, rerun: exit %d %q %s", c.data, code, out, errs)
		}
		writeFile(t, filepath.Join(sub, c.data), c.edit)
		code, o, errs := run(t, "sweep", c.toml, "--out", out)
		oneLineExit2(t, c.data+" edited between two runs", code, o, errs, "but another hash")
	}
}
