package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// refused runs args and checks the bar for bad input: exit 2, nothing on
// stdout, exactly one stderr line, naming want.
func refused(t *testing.T, want string, args ...string) string {
	t.Helper()
	code, out, errs := run(t, args...)
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, want) {
		t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line naming %q", args, code, out, errs, want)
	}
	return errs
}

// tempFile writes a file in a fresh folder and returns its path.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --trials 2^31 builds no list of 2^31 jobs (32 GiB) before its checks: a
// refusal found after them comes back at once, having allocated little.
func TestTrials2To31AllocatesNoJobList(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	refused(t, "--checkpoints 1e12", "run", "--process", "two-choice", "--bins", "10", "--balls", "1e12", "--checkpoints", "1e12", "--trials", "2^31")
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("validating --trials 2^31 allocated %d MiB", grew>>20)
	}
	// --plot keeps every trial: that is counted, and refused when too much.
	refused(t, "--plot x.png: 8.0 MiB per trial", "run", "--process", "two-choice", "--bins", "10", "--balls", "10", "--trials", "2^31", "--workers", "2", "--plot", "x.png", "--plot-kind", "gap-distribution")
}

// --checkpoints that cannot fit are refused by the memory check, naming
// --checkpoints, not preallocated.
func TestCheckpointsInMemoryEstimate(t *testing.T) {
	refused(t, "--checkpoints 1e12: a trial needs", "run", "--process", "two-choice", "--bins", "100", "--balls", "1e12", "--checkpoints", "1e12", "--workers", "1")
	refused(t, "lower --checkpoints or use --format csv", "run", "--process", "two-choice", "--bins", "100", "--balls", "1e12", "--checkpoints", "1e11", "--format", "json", "--workers", "1")
}

// An --ages line "4294967294 1" is held as one age, not a dense 2^32
// array: with few balls the delay ring is short too, and the run is
// quick; with 1e10 balls it is refused naming --ages.
func TestAgesLargeAgeSparse(t *testing.T) {
	path := tempFile(t, "ages.txt", "0 3\n4294967294 1\n")
	code, out, errs := run(t, "run", "--process", "tau-delay", "--delay", "empirical", "--ages", path, "--bins", "100", "--balls", "1e4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if rs := decodeJSON(t, out); len(rs) != 1 || rs[0].Params["tau"].(float64) != 4294967294 {
		t.Errorf("results: %+v", rs)
	}
	if units.AvailableMemory() < 32<<30 {
		refused(t, "--ages "+path+" (τ = 4294967294): a trial needs", "run", "--process", "tau-delay", "--delay", "empirical", "--ages", path, "--bins", "100", "--balls", "1e10")
	}
}

// Age counts whose total wraps in 64 bits are refused, naming the file and
// line; a line without end is refused at its bound, not read whole.
func TestAgesCountsOverflow(t *testing.T) {
	path := tempFile(t, "ages.txt", "0 18446744073709551615\n0 1\n")
	refused(t, "--ages "+path+":2: the counts add up to more than 2^64 − 1", "run", "--process", "tau-delay", "--delay", "empirical", "--ages", path, "--bins", "10", "--balls", "10")
	long := tempFile(t, "long.txt", strings.Repeat("1", 2<<20))
	refused(t, "--ages "+long+":1: a line longer than 1.0 MiB", "run", "--process", "tau-delay", "--delay", "empirical", "--ages", long, "--bins", "10", "--balls", "10")
}

// --stale 2^63 (a panic: the replay buffer's size wrapped) and --stale 1e19
// (refused, blaming --bins) run, as any --stale of more than the balls
// does: the averages are never refreshed.
func TestHaarStaleHuge(t *testing.T) {
	args := []string{"run", "--process", "graphical", "--graph", "cycle:64", "--strategy", "haar", "--balls", "1000", "--format", "json", "--seed", "3"}
	var gaps []string
	for _, stale := range []string{"2000", "9223372036854775808", "1e19"} {
		code, out, errs := run(t, append(args, "--stale", stale)...)
		if code != 0 {
			t.Fatalf("--stale %s: exit %d: %s", stale, code, errs)
		}
		rs := stripTimes(decodeJSON(t, out))
		b, _ := json.Marshal(rs[0].Histogram)
		gaps = append(gaps, string(b))
	}
	if gaps[0] != gaps[1] || gaps[0] != gaps[2] {
		t.Errorf("--stale 2000, 2^63, 1e19 differ: %v", gaps)
	}
}

// A quadratic potential that overflows is written as null, as an
// exponential one is: the JSON stays valid and the run exits 0.
func TestQuadraticPotentialOverflowIsNull(t *testing.T) {
	for _, format := range []string{"json", "jsonl"} {
		code, out, errs := run(t, "run", "--process", "two-choice", "--weights", "const:1e160", "--bins", "100", "--balls", "1000", "--checkpoints", "2", "--format", format)
		if code != 0 || !strings.Contains(out, `"quadratic_potential":null`) {
			t.Fatalf("%s: exit %d, stderr %q", format, code, errs)
		}
		var r result.Result
		if err := json.Unmarshal([]byte(strings.Trim(strings.TrimSpace(out), "[]")), &r); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
	}
}

// Output files that could not be written at the end are refused before
// any work, naming their flag, and leave nothing behind.
func TestOutputPathsCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	base := []string{"run", "--process", "two-choice", "--bins", "100", "--balls", "1000", "--trials", "2"}
	with := func(extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	refused(t, "--plot /proc/x.png: cannot create a file in /proc", with("--plot", "/proc/x.png", "--plot-kind", "gap-distribution")...)
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	refused(t, blocker+" is not a folder", with("--plot", filepath.Join(blocker, "sub", "x.png"), "--plot-kind", "gap-distribution")...)
	refused(t, "--cpuprofile "+dir+": is a directory", with("--cpuprofile", dir)...)
	refused(t, "--memprofile "+dir+": is a directory", with("--memprofile", dir)...)
	sub := filepath.Join(dir, "x.svg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	refused(t, "--plot "+sub+": is a directory", with("--plot", sub, "--plot-kind", "gap-distribution")...)
	refused(t, "--plot-kind load-histogram needs load histograms; two-choice d=2 weights=exp:1 has none",
		with("--weights", "exp:1", "--plot", filepath.Join(dir, "h.png"), "--plot-kind", "load-histogram")...)
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("refused runs left files behind: %v", ents)
	}
	// A plot into folders yet to be made is accepted and drawn.
	deep := filepath.Join(dir, "a", "b", "gaps.png")
	if code, _, errs := run(t, with("--plot", deep, "--plot-kind", "gap-distribution")...); code != 0 {
		t.Fatalf("plot into new folders: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(deep); err != nil {
		t.Error(err)
	}
}

// Two spellings of one value in a list are one experiment listed twice:
// refused naming the flag, as a sweep file's are, while distinct values
// still run.
func TestRunListsOneValueTwice(t *testing.T) {
	refused(t, `--beta lists 0.50 twice ("0.5" and "0.50" are one value)`, "run", "--process", "one-plus-beta", "--beta", "0.5,0.50", "--bins", "10", "--balls", "10")
	refused(t, `--g lists 1.0 twice`, "run", "--process", "g-adv-comp", "--g", "1,1.0", "--bins", "10", "--balls", "10")
	if code, _, errs := run(t, "run", "--process", "one-plus-beta", "--beta", "0.5,0.6", "--bins", "10", "--balls", "10"); code != 0 {
		t.Errorf("--beta 0.5,0.6: exit %d: %s", code, errs)
	}
}

// A --theory list where some processes have no fluid limit runs, shows "–"
// for those, and the comparison for the others (one-choice, and
// g-myopic-comp, which has one (core/theory/compare.go); two-choice would take
// --tau, as a setting, and have none).
func TestTheoryMixedListShowsDash(t *testing.T) {
	code, out, errOut := run(t, "run", "--process", "one-choice,g-myopic-comp,tau-delay", "--g", "1", "--tau", "50",
		"--bins", "1000", "--balls", "2000", "--trials", "2", "--seed", "1", "--theory")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"one-choice: fraction of bins with load ≥ i",
		"g-myopic-comp g=1: fraction of bins with load ≥ i",
		"tau-delay tau=50 delay=fixed: fluid limit –",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, "run", "--process", "one-choice,tau-delay", "--tau", "50",
		"--bins", "100", "--balls", "200", "--format", "jsonl", "--theory")
	if code != 0 {
		t.Fatalf("jsonl: exit %d: %s", code, errOut)
	}
	var with, without int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(line, `"theory":`) {
			with++
		} else {
			without++
		}
	}
	if with != 1 || without != 1 {
		t.Errorf("jsonl: %d lines with a theory and %d without, want 1 and 1:\n%s", with, without, out)
	}
}

// The theory table's tail levels keep their digits: 7.275e-05, not 0.000073
// or 0.000000.
func TestTheoryTailScientific(t *testing.T) {
	code, out, _ := run(t, "run", "--process", "two-choice", "--bins", "1000", "--balls", "1e5", "--trials", "3", "--theory")
	if code != 0 || strings.Contains(out, "0.000000") || !regexp.MustCompile(`\n +103 +3 +0 +7\.275e-05\n`).MatchString(out) {
		t.Errorf("theory tail not in scientific notation:\n%s", out)
	}
}

// run --help gives its flags in groups, common ones first, then one group
// per process family, each flag in exactly one group.
func TestRunHelpGroupsFlags(t *testing.T) {
	code, out, _ := run(t, "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	groups := map[string]string{} // flag: its group's title
	group := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, "flags:") || strings.HasPrefix(l, "Flags of ") {
			group = l
			continue
		}
		if m := regexp.MustCompile(`^  (?:-\w, )? *--([a-z-]+)`).FindStringSubmatch(l); m != nil && group != "" {
			if g, ok := groups[m[1]]; ok {
				t.Errorf("--%s is in %q and %q", m[1], g, group)
			}
			groups[m[1]] = group
		}
	}
	c := newRunCommand(io.Discard, io.Discard)
	c.InitDefaultHelpFlag()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := groups[f.Name]; !ok {
			t.Errorf("--%s is in no group", f.Name)
		}
	})
	for flag, want := range map[string]string{
		"process": "Common flags:", "trials": "Common flags:", "plot": "Common flags:", "weights": "Common flags:", "help": "Common flags:",
		"d": "Flags of d-choice (also kd-choice, redundancy, two-choice, one-plus-beta, memory, always-go-left, quantile, mixed-quantile, hypergraph, idea, rbb, leaky):", "g": "Flags of g-adv-comp (also g-myopic-comp):",
		"delay": "Flags of tau-delay (also d-choice, kd-choice, two-choice, one-plus-beta, memory, two-thinning, k-thinning, threshold, adaptive, quantile, mixed-quantile, twinning, packing):", "retries": "Flags of idea:", "graph-clean": "Flags of graphical (also hypergraph):",
	} {
		if groups[flag] != want {
			t.Errorf("--%s in %q, want %q", flag, groups[flag], want)
		}
	}
	if strings.Index(out, "Common flags:") > strings.Index(out, "Flags of ") {
		t.Error("the common flags do not come first")
	}
}

// One trial gives no interval: the table writes "± –", as summarize does,
// not "± 0"; two or more trials give a number.
func TestRunTableOneTrialHasNoInterval(t *testing.T) {
	_, out, _ := run(t, "run", "--process", "two-choice", "--bins", "100", "--balls", "1000")
	if !strings.Contains(out, " ± – ") {
		t.Errorf("one trial: no \"± –\":\n%s", out)
	}
	_, out, _ = run(t, "run", "--process", "two-choice", "--bins", "100", "--balls", "1000", "--trials", "3")
	if strings.Contains(out, "± –") || !regexp.MustCompile(` ± [0-9]`).MatchString(out) {
		t.Errorf("three trials: want a number after ±:\n%s", out)
	}
}

// A list of --bins runs each value as its own point: the CSV has rows of
// each n, the table names n in its rows, and gap-vs-bins gets a point per
// n; a bad list is refused naming --bins.
func TestRunBinsList(t *testing.T) {
	code, out, errs := run(t, "run", "--process", "two-choice", "--bins", "1e2,1e3", "--balls-per-bin", "10", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 3 || rows[1][2] != "100" || rows[2][2] != "1000" || rows[2][3] != "10000" {
		t.Fatalf("exit %d, %v: %s%s", code, err, out, errs)
	}
	code, out, _ = run(t, "run", "--process", "two-choice", "--bins", "1e2,1e3", "--balls", "1e4")
	if code != 0 || !strings.Contains(out, "n = 100, 1e3 bins") || !strings.Contains(out, "two-choice  n=1e3 d=2") {
		t.Errorf("table of a list of bins:\n%s", out)
	}
	tex := filepath.Join(t.TempDir(), "g.tex")
	code, _, errs = run(t, "run", "--process", "two-choice", "--bins", "10,100,1000", "--balls-per-bin", "10", "--plot-kind", "gap-vs-bins", "--plot", tex)
	b, err := os.ReadFile(tex)
	if code != 0 || err != nil || !strings.Contains(string(b), "(10,") || !strings.Contains(string(b), "(100,") || !strings.Contains(string(b), "(1000,") {
		t.Errorf("gap-vs-bins of three n: exit %d, %v %s\n%s", code, err, errs, b)
	}
	refused(t, "--bins lists 100 twice", "run", "--process", "two-choice", "--bins", "1e2,100", "--balls", "1e4")
	refused(t, `--bins "1e2,": empty value in the list`, "run", "--process", "two-choice", "--bins", "1e2,", "--balls", "1e4")
	refused(t, "--bins 0: want at least 1 bin", "run", "--process", "two-choice", "--bins", "10,0", "--balls", "1e4")
}
