package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/result"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

// Every bad input: exit 2, exactly one line on stderr naming the problem,
// nothing on stdout.
func TestBadInputOneLineExit2(t *testing.T) {
	base := []string{"run", "--process", "two-choice", "--bins", "100", "--balls", "1000"}
	with := func(extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bins", "10", "--balls", "10"}, "--process is required"},
		{[]string{"run", "--process", "one-choice", "--balls", "10"}, "--bins is required"},
		{[]string{"run", "--process", "one-choice", "--bins", "10"}, "--balls is required"},
		{[]string{"run", "--process", "one-choice", "--bins", "1e", "--balls", "10"}, `--bins "1e"`},
		{[]string{"run", "--process", "one-choice", "--bins", "10", "--balls", "-5"}, `--balls "-5" is negative`},
		{[]string{"run", "--process", "one-choice", "--bins", "0", "--balls", "10"}, "--bins 0"},
		{[]string{"run", "--process", "one-choice", "--bins", "2^70", "--balls", "10"}, "too large"},
		{[]string{"run", "--process", "three-choice", "--bins", "10", "--balls", "10"}, `--process "three-choice" is not a process`},
		{[]string{"run", "--process", "one-choice,,two-choice", "--bins", "10", "--balls", "10"}, "empty name"},
		{[]string{"run", "--process", "two-choice,two-choice", "--bins", "10", "--balls", "10"}, "lists two-choice twice"},
		{with("--frobnicate"), "unknown flag: --frobnicate"},
		{with("extra"), `unexpected argument "extra": balloc run takes flags only`},
		{[]string{"run", "--process", "kp-groups", "--group-size", "4", "--aligned", "false", "--bins", "100", "--balls", "10"}, `as in --aligned=false`},
		{[]string{"run", "--process", "graphical", "--graph", "erdos-renyi:100,0.01", "--strategy", "haar", "--balls", "10"}, "is disconnected"},
		{[]string{"run", "--process", "graphical", "--graph", "cycle:100", "--stale", "5", "--balls", "10"}, "--stale applies to graphical --strategy haar only"},
		{[]string{"run", "--process", "graphical", "--graph", "cycle:100", "--strategy", "haar", "--haar-scale", "bogus", "--balls", "10"}, `--haar-scale "bogus"`},
		{[]string{"haar-info"}, "--graph is required"},
		{[]string{"run", "--process", "graphical", "--graph", "cycle:100", "--haar-route", "graph", "--balls", "10"}, "--haar-route applies to graphical --strategy haar only"},
		{[]string{"run", "--process", "graphical", "--graph", "torus:8,8", "--strategy", "haar", "--haar-route", "graph", "--balls", "10"}, "on --graph torus:8,8: routing in all of G is available on complete:n and general graphs"},
		{[]string{"run", "--process", "graphical", "--graph", "cycle:1e6", "--strategy", "haar", "--haar-route", "graph", "--balls", "10"}, "on --graph cycle:1e6: routing in all of G is available"},
		{[]string{"haar-info", "--graph", "complete:8", "--haar-route", "everywhere"}, `--haar-route "everywhere": want set, graph or auto`},
		{[]string{"run", "--process", "graphical", "--graph", "random-regular:100000,3", "--strategy", "haar", "--haar-route", "graph", "--balls", "10"}, "preprocessing needs about"},
		{[]string{"run", "--process", "graphical", "--graph", "cycle:1e9", "--strategy", "haar", "--balls", "10"}, "preprocessing needs about"},
		{with("--d", "3"), "--d does not apply to two-choice"},
		{with("--beta", "0.5"), "--beta does not apply to two-choice"},
		{[]string{"run", "--process", "d-choice", "--d", "0", "--bins", "10", "--balls", "10"}, `--d "0"`},
		{[]string{"run", "--process", "d-choice", "--d", "11", "--bins", "10", "--balls", "10"}, "--d 11 exceeds --bins 10"},
		{[]string{"run", "--process", "one-plus-beta", "--beta", "1.01", "--bins", "10", "--balls", "10"}, "want a probability in [0, 1]"},
		{[]string{"run", "--process", "one-plus-beta", "--bins", "10", "--balls", "10"}, "one-plus-beta needs --beta"},
		{[]string{"run", "--process", "always-go-left", "--d", "3", "--bins", "10", "--balls", "10"}, "d must divide --bins 10"},
		{[]string{"run", "--process", "two-thinning", "--bins", "10", "--balls", "10"}, "two-thinning needs --threshold"},
		{with("--weights", "exp:-1"), `--weights "exp:-1"`},
		{with("--trials", "0"), "--trials 0"},
		{with("--trials", "1.5"), `--trials "1.5" is not an integer`},
		{with("--checkpoints", "1001"), "--checkpoints 1001"},
		{with("--format", "xml"), `--format "xml"`},
		{with("--progress", "sometimes"), `--progress "sometimes"`},
		{with("--engine", "gpu"), `--engine "gpu"`},
		{with("--alpha", "x"), `--alpha "x"`},
		{with("--loads"), "--loads needs --format json or jsonl"},
		{with("--theory", "--format", "csv"), "--theory needs --format table, json or jsonl"},
		{with("--weights", "exp:1", "--theory"), "--theory: no fluid limit for two-choice"},
		{with("--cpuprofile", "a.pprof", "--memprofile", "b.pprof"), "each need a run of their own"},
		{with("--cpuprofile", "/proc/nonexistent/cpu.pprof"), "cannot make the folder /proc/nonexistent"},
		{[]string{"run", "--process", "one-choice", "--bins", "4294967295", "--balls", "1", "--trials", "64", "--workers", "64", "--engine", "direct"}, "of memory available ("},
		{[]string{"run", "--process", "one-choice", "--bins", "4294967296", "--balls", "1", "--engine", "direct"}, "at most 4294967295 bins; use --engine histogram"},
		{[]string{"run", "--process", "always-go-left", "--bins", "4294967296", "--balls", "1"}, "always-go-left cannot run on the histogram engine"},
		{[]string{"run", "--process", "tau-delay", "--tau", "5", "--bins", "100", "--balls", "1", "--engine", "histogram"}, "--engine histogram: tau-delay is not symmetric"},
		{[]string{"run", "--process", "two-choice", "--weights", "exp:1", "--bins", "100", "--balls", "1", "--engine", "histogram"}, "--engine histogram: random weights"},
		{[]string{"run", "--process", "two-choice", "--bins", "100", "--balls", "1", "--engine", "histogram", "--loads", "--format", "json"}, "--loads needs every bin's load"},
		{[]string{"run", "--process", "two-choice", "--bins", "2^51", "--balls", "1"}, "at most 2^50 bins"},
		{[]string{"run", "--process", "g-adv-comp", "--bins", "10", "--balls", "10"}, "g-adv-comp needs --g"},
		{[]string{"run", "--process", "g-adv-comp", "--g", "-1", "--bins", "10", "--balls", "10"}, `--g "-1": want a real number in [0, 1e15]`},
		{[]string{"run", "--process", "g-adv-comp", "--g", "1", "--adversary", "lazy", "--bins", "10", "--balls", "10"}, `--adversary "lazy"`},
		{[]string{"run", "--process", "g-myopic-comp", "--g", "1", "--adversary", "random", "--bins", "10", "--balls", "10"}, "--adversary does not apply to g-myopic-comp"},
		{[]string{"run", "--process", "sigma-noisy-load", "--sigma", "-2", "--bins", "10", "--balls", "10"}, `--sigma "-2"`},
		{[]string{"run", "--process", "rho-noisy-comp", "--rho", "gauss", "--bins", "10", "--balls", "10"}, `--rho "gauss"`},
		{[]string{"run", "--process", "rho-noisy-comp", "--rho", "step:1", "--bins", "10", "--balls", "10"}, `--rho "step:1"`},
		{[]string{"run", "--process", "rho-noisy-comp", "--rho", "step:1,1.5", "--bins", "10", "--balls", "10"}, `--rho "step:1,1.5"`},
		{[]string{"run", "--process", "rho-noisy-comp", "--rho", "cauchy:1", "--bins", "10", "--balls", "10"}, `--rho "cauchy:1"`},
		{[]string{"run", "--process", "tau-delay", "--tau", "2^33", "--bins", "10", "--balls", "10"}, "--tau 8589934592: want at most 4294967294"},
		{[]string{"run", "--process", "tau-delay", "--tau", "5", "--delay", "random", "--bins", "10", "--balls", "10"}, `--delay "random"`},
		{[]string{"run", "--process", "b-batch", "--batch", "0", "--bins", "10", "--balls", "10"}, "--batch 0"},
		{[]string{"run", "--process", "g-myopic-comp", "--g", "1,,2", "--bins", "10", "--balls", "10"}, "empty value in the list"},
		{[]string{"run", "--process", "g-myopic-comp", "--g", "1,1", "--bins", "10", "--balls", "10"}, "--g lists 1 twice"},
		{[]string{"run", "--process", "tau-delay,kp-groups", "--group-size", "2", "--tau", "3", "--theory", "--bins", "10", "--balls", "10"}, "--theory: no fluid limit for tau-delay"},
		{[]string{"run", "--process", "tau-delay", "--tau", "4e9", "--delay", "uniform", "--bins", "10", "--balls", "4e9", "--workers", "4", "--trials", "4"}, "; lower --tau (or --balls) or --workers"},
		{[]string{"run", "--process", "idea", "--d", "0", "--bins", "10", "--balls", "10"}, `--d "0"`},
		{[]string{"run", "--process", "idea", "--d", "11", "--bins", "10", "--balls", "10"}, "--d 11 exceeds --bins 10"},
		{[]string{"run", "--process", "idea", "--retries", "0", "--bins", "10", "--balls", "10"}, `--retries "0": want an integer in [1, 1048576]`},
		{[]string{"run", "--process", "idea", "--variant", "psychic", "--bins", "10", "--balls", "10"}, `--variant "psychic": want numbered, sampling or oracle`},
		{[]string{"run", "--process", "idea", "--sample-size", "3", "--bins", "10", "--balls", "10"}, "--sample-size applies to idea --variant sampling only"},
		{[]string{"run", "--process", "idea", "--variant", "sampling", "--sample-rule", "maybe", "--bins", "10", "--balls", "10"}, `--sample-rule "maybe"`},
		{[]string{"run", "--process", "idea", "--dims", "4", "--populated", "5", "--bins", "10", "--balls", "10"}, "--populated 5 exceeds --dims 4"},
		{[]string{"run", "--process", "idea", "--dims", "0", "--bins", "10", "--balls", "10"}, `--dims "0": want an integer in [1, 64]`},
		{[]string{"run", "--process", "idea", "--vector-gap", "all", "--bins", "10", "--balls", "10"}, "--vector-gap applies to balls of --dims 2 or more"},
		{[]string{"run", "--process", "idea", "--held", "keep", "--bins", "10", "--balls", "10"}, `--held "keep": want drop or carry`},
		{[]string{"run", "--process", "idea", "--variant", "oracle", "--held", "carry", "--bins", "10", "--balls", "10"}, "--held applies to idea --variant numbered or sampling only"},
		{[]string{"run", "--process", "d-choice", "--held", "carry", "--bins", "10", "--balls", "10"}, "--held does not apply to d-choice"},
		{[]string{"run", "--process", "d-choice", "--dims", "2", "--populated", "3", "--bins", "10", "--balls", "10"}, "--populated 3 exceeds --dims 2"},
		{[]string{"run", "--process", "d-choice", "--dims", "2", "--bins", "10", "--balls", "10", "--engine", "histogram"}, "--engine histogram: multi-dimensional balls"},
		{[]string{"run", "--process", "d-choice", "--dims", "2", "--theory", "--bins", "10", "--balls", "10"}, "--theory: no fluid limit for balls of --dims 2"},
		{with("--weights", "pareto:2"), "pareto:α needs α > 2"},
		{with("--weights", "pareto:x"), `--weights "pareto:x"`},
		{with("--weights", "uniform:2,1"), "uniform:a,b needs a ≤ b"},
		{with("--weights", "uniform:-1,1"), `--weights "uniform:-1,1"`},
		{with("--dims", "2"), "--dims does not apply to two-choice"},
		{[]string{"info", "extra"}, `unknown command "extra"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errs)
			continue
		}
		if out != "" {
			t.Errorf("%v: wrote to stdout: %q", c.args, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") {
			t.Errorf("%v: stderr is not one line: %q", c.args, errs)
		}
		if !strings.Contains(errs, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, errs, c.want)
		}
	}
}

func decodeJSON(t *testing.T, out string) []result.Result {
	t.Helper()
	var rs []result.Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("output is not a JSON array of results: %v\n%s", err, out)
	}
	return rs
}

func stripTimes(rs []result.Result) []result.Result {
	for i := range rs {
		rs[i].ElapsedS, rs[i].BallsPerS = 0, 0
	}
	return rs
}

// idea, and balls with weights or vectors, give the same numbers with 1 and
// 3 workers, and report their retries and estimates in every format.
func TestIdeaSameResultsForAnyWorkers(t *testing.T) {
	for _, extra := range [][]string{
		{"--variant", "numbered,sampling,oracle"},
		{"--weights", "pareto:3"},
		{"--dims", "8", "--populated", "2", "--weights", "uniform:0,2"},
	} {
		args := append([]string{"run", "--process", "idea,d-choice", "--bins", "500", "--balls", "2e4", "--trials", "4", "--checkpoints", "2",
			"--format", "json", "--seed", "7"}, extra...)
		var outs []string
		for _, w := range []string{"1", "3"} {
			code, out, errs := run(t, append(args, "--workers", w)...)
			if code != 0 {
				t.Fatalf("%v workers %s: exit %d: %s", extra, w, code, errs)
			}
			rs := stripTimes(decodeJSON(t, out))
			for _, r := range rs {
				if (r.Process == "idea") != (r.Retries() != nil) {
					t.Fatalf("%v: %s reports retries %v", extra, r.Process, r.Retries())
				}
			}
			b, _ := json.Marshal(rs)
			outs = append(outs, string(b))
		}
		if outs[0] != outs[1] {
			t.Errorf("%v: results differ between --workers 1 and --workers 3", extra)
		}
	}
	code, out, _ := run(t, "run", "--process", "idea,d-choice", "--bins", "100", "--balls", "1000", "--trials", "2")
	if code != 0 || !strings.Contains(out, "retries (rounds of d draws per ball") || !strings.Contains(out, "1 ± 0                    1            –") {
		t.Errorf("the table lacks the retries section:\n%s", out)
	}
	code, out, _ = run(t, "run", "--process", "idea", "--bins", "100", "--balls", "1000", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	h := 0
	if len(rows) > 0 {
		h = slices.Index(rows[0], "balls_per_s") + 1
	}
	if code != 0 || err != nil || len(rows) != 2 || len(rows[1]) != h+6 || rows[1][h] == "" || rows[1][h+5] == "" {
		t.Errorf("csv lacks the retries and estimates columns: %v %v", err, rows)
	}
}

// A run's csv has one schema: the six idea columns only when an idea process
// is in the run, and then on every row (empty for the other processes).
func TestCSVIdeaColumnsOnlyWithIdea(t *testing.T) {
	code, out, _ := run(t, "run", "--process", "two-choice", "--bins", "100", "--balls", "1000", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 2 || !slices.Equal(rows[0], append([]string{"process", "d"}, csvHeader...)) || slices.Contains(rows[0], "retries_mean") {
		t.Errorf("two-choice csv: exit %d, %v, header %v", code, err, rows)
	}
	code, out, _ = run(t, "run", "--process", "idea,d-choice", "--bins", "100", "--balls", "1000", "--format", "csv")
	rows, err = csv.NewReader(strings.NewReader(out)).ReadAll() // ReadAll refuses rows of unequal length
	h := 0
	if len(rows) > 0 {
		h = slices.Index(rows[0], "balls_per_s") + 1
	}
	if code != 0 || err != nil || len(rows) != 3 || rows[0][h] != "retries_mean" {
		t.Fatalf("idea,d-choice csv: exit %d, %v, %v", code, err, rows)
	}
	if rows[1][0] != "idea" || rows[1][h] == "" || rows[2][0] != "d-choice" || rows[2][h] != "" {
		t.Errorf("idea columns: %v / %v", rows[1], rows[2])
	}
}

// The same command gives the same numbers with 1 and 4 workers.
func TestSameResultsForAnyWorkers(t *testing.T) {
	args := []string{"run", "--process", "one-choice,two-choice,one-plus-beta,two-thinning", "--beta", "0.3", "--threshold", "1",
		"--bins", "1000", "--balls", "2e5", "--trials", "6", "--checkpoints", "4", "--format", "json", "--seed", "99"}
	var outs []string
	for _, w := range []string{"1", "4"} {
		code, out, errs := run(t, append(args, "--workers", w)...)
		if code != 0 {
			t.Fatalf("workers %s: exit %d: %s", w, code, errs)
		}
		b, _ := json.Marshal(stripTimes(decodeJSON(t, out)))
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Error("results differ between --workers 1 and --workers 4")
	}
	if rs := decodeJSON(t, "["+strings.TrimPrefix(strings.TrimSuffix(outs[0], "]"), "[")+"]"); len(rs) != 24 {
		t.Errorf("%d results, want 4 processes × 6 trials", len(rs))
	}
}

func TestFormats(t *testing.T) {
	args := []string{"run", "--process", "two-choice,one-choice", "--bins", "100", "--balls", "1e4", "--trials", "3", "--checkpoints", "2"}
	code, out, _ := run(t, append(args, "--format", "jsonl", "--theory", "--loads")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 6 {
		t.Fatalf("jsonl: exit %d, %d lines", code, len(lines))
	}
	for i, l := range lines {
		var r result.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("jsonl line %d: %v", i, err)
		}
		wantProc := []string{"two-choice", "one-choice"}[i/3]
		if r.Process != wantProc || r.Trial != uint64(i%3) || len(r.Loads) != 100 || r.Theory == nil || len(r.Checkpoints) != 2 {
			t.Errorf("jsonl line %d: %s trial %d, %d loads, theory %v, %d checkpoints", i, r.Process, r.Trial, len(r.Loads), r.Theory != nil, len(r.Checkpoints))
		}
		sum := 0.0
		for _, x := range r.Loads {
			sum += x
		}
		if sum != 1e4 {
			t.Errorf("jsonl line %d: loads add up to %v, want 1e4", i, sum)
		}
	}
	code, out, _ = run(t, append(args, "--format", "csv")...)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 1+2*3*2 {
		t.Fatalf("csv: exit %d, err %v, %d rows (want header + 2 processes × 3 trials × 2 checkpoints)", code, err, len(rows))
	}
	at := slices.Index(rows[0], "at_balls")
	if rows[0][0] != "process" || !slices.Equal(rows[0][at-5:], csvHeader) || rows[1][at] != "5000" || rows[1][at+1] != "false" || rows[2][at] != "10000" || rows[2][at+1] != "true" {
		t.Errorf("csv rows: %v / %v / %v", rows[0], rows[1], rows[2])
	}
	code, out, _ = run(t, append(args, "--theory")...)
	for _, want := range []string{"two-choice", "one-choice", "gap (mean ± 95% CI)", "gap: % of trials", "fluid limit", "simulated"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("table (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
}

func TestProgressAndProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	args := []string{"run", "--process", "two-choice", "--bins", "1e4", "--balls", "5e7", "--cpuprofile", prof}
	code, _, errs := run(t, append(args, "--progress", "never")...)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q with --progress never", code, errs)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no CPU profile at %s: %v", prof, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("profile left files behind: %v", ents)
	}
	code, _, errs = run(t, "run", "--process", "two-choice", "--bins", "1e4", "--balls", "5e7", "--progress", "always")
	if code != 0 || !strings.Contains(errs, "balls") {
		t.Errorf("--progress always: exit %d, stderr %q", code, errs)
	}
}

func TestInfo(t *testing.T) {
	code, out, _ := run(t, "info")
	for _, want := range []string{"CPU", "caches", "PCG32", "Lemire", "two-choice"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("info (exit %d) lacks %q", code, want)
		}
	}
}

// haar-info and a haar run say when the graph is not regular, the paper's
// setting, and only then.
func TestHaarIrregularNote(t *testing.T) {
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"haar-info", "--graph", "path:16"}, true},
		{[]string{"haar-info", "--graph", "cycle:16"}, false},
		{[]string{"run", "--process", "graphical", "--graph", "path:16", "--strategy", "haar", "--balls", "100"}, true},
		{[]string{"run", "--process", "graphical", "--graph", "path:16", "--strategy", "greedy", "--balls", "100"}, false},
		{[]string{"run", "--process", "graphical", "--graph", "torus:4,4", "--strategy", "haar", "--balls", "100"}, false},
	} {
		code, out, _ := run(t, c.args...)
		if has := strings.Contains(out, "is not regular ("); code != 0 || has != c.note {
			t.Errorf("%v: exit %d, note %v, want %v:\n%s", c.args, code, has, c.note, out)
		}
	}
}

// haar-info and a haar run say when the plan's weakest drift is below
// d/log₂²n (dense graphs routed inside G[S_i]), and only then.
func TestHaarWeakDriftNote(t *testing.T) {
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"haar-info", "--graph", "complete:128"}, true},
		{[]string{"haar-info", "--graph", "complete:128", "--haar-route", "graph"}, false},
		{[]string{"haar-info", "--graph", "cycle:1024"}, false},
		{[]string{"haar-info", "--graph", "random-regular:256,3"}, false},
		{[]string{"run", "--process", "graphical", "--graph", "complete:128", "--strategy", "haar", "--balls", "100"}, true},
		{[]string{"run", "--process", "graphical", "--graph", "complete:128", "--strategy", "greedy", "--balls", "100"}, false},
		{[]string{"run", "--process", "graphical", "--graph", "torus:8,8", "--strategy", "haar", "--balls", "100"}, false},
	} {
		code, out, _ := run(t, c.args...)
		if has := strings.Contains(out, "weakest drift λ_i/C = "); code != 0 || has != c.note {
			t.Errorf("%v: exit %d, note %v, want %v:\n%s", c.args, code, has, c.note, out)
		}
	}
}

// haar-info --measure prints one measured row per level of T, and refuses,
// in one line naming --measure, a run of more than 2^40 balls.
func TestHaarInfoMeasure(t *testing.T) {
	code, out, errs := run(t, "haar-info", "--graph", "cycle:16", "--measure", "1000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := strings.Count(out, "   predicted "); got != 4 {
		t.Errorf("cycle:16 has 4 levels, --measure printed %d rows:\n%s", got, out)
	}
	code, out, errs = run(t, "haar-info", "--graph", "cycle:4096", "--measure", "2^29")
	if lines := strings.Split(strings.TrimSpace(errs), "\n"); code != 2 || len(lines) != 1 || !strings.Contains(errs, "--measure") || out != "" {
		t.Errorf("2^41 balls: exit %d, stdout %q, stderr %q; want exit 2 and one line naming --measure", code, out, errs)
	}
}

// A list of parameter values runs each value, in order, per listed process.
func TestParameterLists(t *testing.T) {
	code, out, errs := run(t, "run", "--process", "g-adv-comp,g-myopic-comp", "--g", "0,2", "--adversary", "greedy-reverse,random",
		"--bins", "100", "--balls", "1e4", "--trials", "2", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r result.Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %v %v %d", r.Process, r.Params["g"], r.Params["adversary"], r.Trial))
	}
	want := []string{
		"g-adv-comp 0 greedy-reverse 0", "g-adv-comp 0 greedy-reverse 1", "g-adv-comp 0 random 0", "g-adv-comp 0 random 1",
		"g-adv-comp 2 greedy-reverse 0", "g-adv-comp 2 greedy-reverse 1", "g-adv-comp 2 random 0", "g-adv-comp 2 random 1",
		"g-myopic-comp 0 <nil> 0", "g-myopic-comp 0 <nil> 1", "g-myopic-comp 2 <nil> 0", "g-myopic-comp 2 <nil> 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConcurrentCommand(t *testing.T) {
	base := []string{"concurrent", "--process", "two-choice", "--bins", "1000", "--balls", "1e5"}
	with := func(extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"concurrent", "--process", "always-go-left", "--bins", "10", "--balls", "10"}, "balloc concurrent runs one-choice"},
		{[]string{"concurrent", "--process", "two-choice", "--bins", "10", "--balls", "2^32"}, "fewer than 2^32 balls"},
		{[]string{"concurrent", "--process", "two-choice", "--bins", "10"}, "--balls is required"},
		{with("--mode", "lazy"), `--mode "lazy"`},
		{with("--layout", "sparse"), `--layout "sparse"`},
		{with("--batch", "4"), "--batch applies to --mode local-batch only"},
		{with("--mode", "local-batch"), "--mode local-batch needs --batch B"},
		{with("--emulate", "4", "--workers", "2"), "leave out --workers and --scaling"},
		{with("--workers", "2", "--scaling", "1,2"), "--workers and --scaling both set"},
		{with("--scaling", "1,0"), "--scaling 0"},
		{with("--beta", "0.5"), "--beta does not apply to two-choice"},
		{with("--format", "csv"), `--format "csv"`},
		{with("--weights", "exp:1"), "unknown flag: --weights"},
	} {
		code, out, errs := run(t, c.args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line mentioning %q", c.args, code, errs, c.want)
		}
	}
	// A scaling run prints a row per worker count with the comparison.
	code, out, errs := run(t, with("--scaling", "1,2", "--measure-every", "8")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"workers", "age mean", "i.i.d. ages, same law", "two-choice gap", "b-batch b = τ gap", "\n1 ", "\n2 "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The emulated run is the same for the same seed, in JSON.
	args := with("--emulate", "16", "--format", "json", "--mode", "cas")
	_, a, _ := run(t, args...)
	_, b, _ := run(t, args...)
	var ra, rb []map[string]any
	if err := json.Unmarshal([]byte(a), &ra); err != nil || len(ra) != 1 {
		t.Fatalf("json: %v\n%s", err, a)
	}
	json.Unmarshal([]byte(b), &rb)
	strip := func(rs []map[string]any) string {
		for _, r := range rs {
			delete(r, "balls_per_s")
			for _, k := range []string{"concurrent", "delay_model", "two_choice", "replay", "tau_delay", "b_batch"} {
				if m, ok := r[k].(map[string]any); ok {
					delete(m, "elapsed_s")
					delete(m, "balls_per_s")
				}
			}
		}
		out, _ := json.Marshal(rs)
		return string(out)
	}
	if strip(ra) != strip(rb) {
		t.Error("two emulated runs with the same seed differ")
	}
	conc := ra[0]["concurrent"].(map[string]any)
	if conc["engine"] != "emulated" || conc["workers"].(float64) != 16 || conc["global_staleness"] == nil {
		t.Errorf("emulated result: %v", conc)
	}
}

// The table header says which engine auto chose and why, in one line, and
// says nothing of the kind when the engine was named.
func TestRunHeaderSaysAutoEngine(t *testing.T) {
	code, out, _ := run(t, "run", "--process", "b-batch", "--batch", "1e4", "--bins", "1e4", "--balls", "1e6")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "auto engine: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "b-batch histogram (est. ") || !strings.Contains(lines[0], "on direct)") {
		t.Errorf("auto engine lines %q in\n%s", lines, out)
	}
	_, out, _ = run(t, "run", "--process", "b-batch", "--batch", "1e4", "--bins", "1e4", "--balls", "1e6", "--engine", "direct")
	if strings.Contains(out, "auto engine") {
		t.Errorf("--engine direct, yet the header says\n%s", out)
	}
}
