package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/plot"
)

// TestMain lets tests run balloc as a real process: the test binary runs
// Main when BALLOC_MAIN is set, so a sweep can be killed with SIGKILL.
func TestMain(m *testing.M) {
	if os.Getenv("BALLOC_MAIN") == "1" {
		lowerAddressSpace() // memlimit_test.go
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resultLines reads a sweep's results as sorted JSON lines without timings.
func resultLines(t *testing.T, dir string) []string {
	t.Helper()
	recs, _, torn, err := sweep.ReadResults(filepath.Join(dir, "results.jsonl"))
	if err != nil || torn {
		t.Fatalf("%s: %v (torn %v)", dir, err, torn)
	}
	var out []string
	for _, r := range recs {
		out = append(out, sweep.WithoutTiming(r))
	}
	slices.Sort(out)
	return out
}

const smallSweep = `# two processes, two sizes, two parameter values
processes   = ["two-choice", "g-myopic-comp"]
bins        = [100, "1e3"]
balls_per_bin = [50]
trials      = 6
seed        = 7
checkpoints = 4
[params]
g = [0, 2]
`

func TestSweepErrorsNameFileLineAndKey(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		text, want string
	}{
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\nbogus = 3\n", "bad.toml:4: bogus: not a sweep setting"},
		{"processes = [\"two-choice\"]\nbins = []\nballs = [100]\n", "bad.toml:2: bins: empty list"},
		{"processes = [\"three-choice\"]\nbins = [10]\nballs = [100]\n", `bad.toml:1: processes: --process "three-choice" is not a process`},
		{"processes = [\"two-choice\"]\nbins = [\"1e\"]\nballs = [100]\n", `bad.toml:2: bins: "1e" is not a number`},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\n[params]\nbeta = [0.5]\n", "bad.toml:5: params.beta: applies to none of two-choice"},
		{"processes = [\"one-plus-beta\"]\nbins = [10]\nballs = [100]\n[params]\nbeta = [1.5]\n", `bad.toml:5: params.beta: --beta "1.5": want a probability`},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\n[params]\nfrobs = 2\n", "bad.toml:5: params.frobs: not a process parameter"},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\ntrials = 0\n", "bad.toml:4: trials: want 1 to 2^31"},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\nengine = \"gpu\"\n", `bad.toml:4: engine: --engine "gpu"`},
		{"processes = [\"two-choice\"]\nbins = [10]\n", "bad.toml: no balls"},
		{"bins = [10]\nballs = [10]\n", "bad.toml: no processes"},
		{"processes = [\"two-choice\"\nbins = [10]\n", "bad.toml:2:"},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\nballs_per_bin = [3]\n", "bad.toml:4: balls_per_bin: give balls or balls_per_bin, not both"},
		{"processes = [\"two-choice\"]\nbins = [10]\nballs = [100]\ncheckpoints = 500\n", "bad.toml:4: checkpoints: --checkpoints 500"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, "bad.toml")
		writeFile(t, path, c.text)
		code, out, errs := run(t, "sweep", path, "--out", filepath.Join(dir, "out"))
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line containing %q", c.text, code, errs, c.want)
		}
	}
}

// A sweep killed with SIGKILL part-way, then run again, gives exactly the
// results of an uninterrupted run; so does one whose results end in a torn
// line.
func TestSweepResumesAfterKill(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, "processes = [\"two-choice\"]\nbins = [20000]\nballs_per_bin = [150]\ntrials = 30\nseed = 3\n")
	whole := filepath.Join(dir, "whole")
	if code, _, errs := run(t, "sweep", file, "--out", whole); code != 0 {
		t.Fatalf("uninterrupted sweep: %s", errs)
	}
	want := resultLines(t, whole)
	if len(want) != 30 {
		t.Fatalf("%d results, want 30", len(want))
	}

	killed := filepath.Join(dir, "killed")
	cmd := exec.Command(os.Args[0], "sweep", file, "--out", killed, "--workers", "1")
	cmd.Env = append(os.Environ(), "BALLOC_MAIN=1")
	p, err := start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	lines := func() int {
		data, _ := os.ReadFile(filepath.Join(killed, "results.jsonl"))
		return strings.Count(string(data), "\n")
	}
	if !p.until(func() bool { return lines() >= 3 }) || lines() >= 30 {
		cmd.Process.Kill()
		t.Fatalf("could not catch the sweep part-way (%d lines)", lines())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait()
	partial := resultLines(t, killed)
	if len(partial) == 30 {
		t.Fatal("the sweep finished before it was killed")
	}
	if code, _, errs := run(t, "sweep", file, "--out", killed); code != 0 {
		t.Fatalf("resumed sweep: %s", errs)
	}
	if got := resultLines(t, killed); !slices.Equal(got, want) {
		t.Errorf("resumed after a kill at %d trials: results differ from an uninterrupted run", len(partial))
	}

	// A torn last line: cut the file inside its last line.
	path := filepath.Join(killed, "results.jsonl")
	data, _ := os.ReadFile(path)
	last := strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n")
	writeFile(t, path, string(data[:last+20]))
	code, _, errs := run(t, "sweep", file, "--out", killed)
	if code != 0 || !strings.Contains(errs, "torn line") {
		t.Fatalf("sweep over a torn line: exit %d, stderr %q", code, errs)
	}
	if got := resultLines(t, killed); !slices.Equal(got, want) {
		t.Error("after a torn line: results differ from an uninterrupted run")
	}
	// A folder of another sweep is refused.
	other := filepath.Join(dir, "o.toml")
	writeFile(t, other, "processes = [\"one-choice\"]\nbins = [10]\nballs = [10]\n")
	if code, _, errs := run(t, "sweep", other, "--out", killed); code != 2 || !strings.Contains(errs, "holds results of a different sweep") {
		t.Errorf("another sweep into the same folder: exit %d, %q", code, errs)
	}
}

// The union of N shards is the unsharded sweep, trial for trial; merge
// reports what is missing and what is duplicated.
func TestShardsMergeToTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, smallSweep)
	whole := filepath.Join(dir, "whole")
	if code, _, errs := run(t, "sweep", file, "--out", whole); code != 0 {
		t.Fatal(errs)
	}
	var shards []string
	for i := range 3 {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, d)
		if code, _, errs := run(t, "sweep", file, "--out", d, "--shard", fmt.Sprintf("%d/3", i)); code != 0 {
			t.Fatal(errs)
		}
	}
	// The Slurm variables choose the shard when --shard is absent.
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
	env := filepath.Join(dir, "env-shard")
	if code, _, errs := run(t, "sweep", file, "--out", env); code != 0 {
		t.Fatal(errs)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	if !slices.Equal(resultLines(t, env), resultLines(t, shards[1])) {
		t.Error("the shard from SLURM_ARRAY_TASK_ID differs from --shard 1/3")
	}
	merged := filepath.Join(dir, "merged")
	code, out, errs := run(t, append(append([]string{"merge"}, shards...), shards[0], "--out", merged)...)
	if code != 0 || !strings.Contains(out, "duplicated") {
		t.Fatalf("merge: exit %d, %s %s", code, out, errs)
	}
	if !slices.Equal(resultLines(t, merged), resultLines(t, whole)) {
		t.Error("the merged shards differ from the unsharded sweep")
	}
	if !strings.Contains(out, fmt.Sprintf("%d duplicated", len(resultLines(t, shards[0])))) {
		t.Errorf("merge did not count the duplicated shard: %s", out)
	}
	code, out, _ = run(t, "merge", shards[0], shards[2], "--out", filepath.Join(dir, "partial"))
	if code != 1 || !strings.Contains(out, "missing: ") {
		t.Errorf("merge without shard 1: exit %d, %s", code, out)
	}
	// The missing points read as words ("g-myopic-comp g=2 n=100 m=5000"), not Go map syntax.
	if strings.Contains(out, "map[") || !regexp.MustCompile(`missing: g-myopic-comp g=\d+ n=\d+ m=\d+ \(spec [0-9a-f]+\): trials \d`).MatchString(out) {
		t.Errorf("merge's missing lines are not plain words: %s", out)
	}
	// A copy of shard 0 with one trial's gap changed is a conflict, not a duplicate.
	forged := filepath.Join(dir, "forged")
	if err := os.MkdirAll(forged, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"manifest.json", "results.jsonl"} {
		b, err := os.ReadFile(filepath.Join(shards[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "results.jsonl" {
			b = []byte(regexp.MustCompile(`"gap":[0-9.e+-]+`).ReplaceAllString(string(b), `"gap":1000`))
		}
		writeFile(t, filepath.Join(forged, name), string(b))
	}
	code, _, errs = run(t, "merge", shards[0], forged, "--out", filepath.Join(dir, "conflict"))
	if code == 0 || !strings.Contains(errs, "differs between") {
		t.Errorf("merge of conflicting duplicates: exit %d, %s", code, errs)
	}
}

func TestSummarizeAndPlot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, smallSweep)
	sw := filepath.Join(dir, "s")
	if code, _, errs := run(t, "sweep", file, "--out", sw); code != 0 {
		t.Fatal(errs)
	}
	for format, want := range map[string]string{
		"table": "gap (mean ± 95% CI)", "csv": "point,process,d,g,bins", "jsonl": `{"point":0,"process":"two-choice"`, "markdown": "| process | params |", "latex": `\begin{tabular}`,
	} {
		code, out, errs := run(t, "summarize", sw, "--format", format)
		if code != 0 || !strings.Contains(out, want) || (format != "csv" && strings.Count(out, "g-myopic-comp") != 4) { // csv: a row per gap value
			t.Errorf("summarize --format %s: exit %d %s\n%s", format, code, errs, out)
		}
	}
	for _, kind := range plot.Kinds {
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, kind+"."+ext)
			code, _, errs := run(t, "plot", sw, "--kind", kind, "--out", path)
			st, err := os.Stat(path)
			if code != 0 || err != nil || st.Size() < 1000 {
				t.Errorf("plot %s %s: exit %d %s (%v)", kind, ext, code, errs, err)
			}
		}
	}
	if code, _, errs := run(t, "plot", sw, "--kind", "pie", "--out", "x.png"); code != 2 || !strings.Contains(errs, `--kind "pie"`) {
		t.Errorf("plot --kind pie: exit %d %s", code, errs)
	}
}

func TestSlurmScripts(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, smallSweep)
	code, out, errs := run(t, "slurm", file, "--tasks", "4", "--out", filepath.Join(dir, "s"), "--time", "01:00:00")
	if code != 0 {
		t.Fatal(errs)
	}
	array, _ := os.ReadFile(filepath.Join(dir, "s", "slurm", "array.sbatch"))
	merge, _ := os.ReadFile(filepath.Join(dir, "s", "slurm", "merge.sbatch"))
	submit, _ := os.ReadFile(filepath.Join(dir, "s", "slurm", "submit.sh"))
	for what, c := range map[string]bool{
		"array range":     strings.Contains(string(array), "#SBATCH --array=0-3"),
		"time limit":      strings.Contains(string(array), "#SBATCH --time=01:00:00"),
		"sweep per shard": strings.Contains(string(array), "sweep") && strings.Contains(string(array), "shard-\"$SLURM_ARRAY_TASK_ID\""),
		"merge of shards": strings.Contains(string(merge), "/shard-*' --out") && strings.Contains(string(merge), "merged"),
		"dependency":      strings.Contains(string(submit), "--dependency=afterok:"),
		"printed":         strings.Contains(out, "submit.sh"),
	} {
		if !c {
			t.Errorf("slurm scripts: %s missing", what)
		}
	}
	if code, _, errs := run(t, "slurm", file); code != 2 || !strings.Contains(errs, "--tasks is required") {
		t.Errorf("slurm without --tasks: exit %d %s", code, errs)
	}
}
