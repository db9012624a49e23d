package sweep

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
)

// describe is a grid point for a test's comparison: the settings a block
// may set, and its trials.
func describe(s *core.Spec) string {
	return fmt.Sprintf("%s %s n=%d m=%d trials=%d seed=%d cp=%d log=%v", s.Process.Name, s.ParamsText(), s.Bins, s.Balls, s.Trials, s.Seed, s.Checkpoints, s.CheckpointsLog)
}

func describeAll(g *Grid) []string {
	var out []string
	for _, s := range g.Specs {
		out = append(out, describe(s))
	}
	return out
}

// Each block is a grid of its own: its keys replace the top level's, its
// params merge into the top level's key by key, and its points keep its
// trials; the points are the blocks' in file order.
func TestBlocksKeysTrialsAndParamMerge(t *testing.T) {
	dir := t.TempDir()
	g, err := ReadGrid(writeGrid(t, dir, "b", `processes     = ["g-myopic-comp", "d-choice"]
bins          = [100]
balls_per_bin = [10]
trials        = 2
seed          = 3
checkpoints   = "log:5"
[params]
g = [1]
d = [3]
[[grid]]
trials = 6
params = { g = [4, 8] }     # replaces g; d = 3 stays
[[grid]]
process = "one-plus-beta"   # replaces processes
balls   = ["1e4"]           # replaces balls_per_bin
seed    = 9
[grid.params]
beta = 0.5
[[grid]]
bins = [200]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"g-myopic-comp g=4 n=100 m=1000 trials=6 seed=3 cp=5 log=true",
		"g-myopic-comp g=8 n=100 m=1000 trials=6 seed=3 cp=5 log=true",
		"d-choice d=3 n=100 m=1000 trials=6 seed=3 cp=5 log=true",
		"one-plus-beta beta=0.5 n=100 m=10000 trials=2 seed=9 cp=5 log=true",
		"g-myopic-comp g=1 n=200 m=2000 trials=2 seed=3 cp=5 log=true",
		"d-choice d=3 n=200 m=2000 trials=2 seed=3 cp=5 log=true",
	}
	if got := describeAll(g); !slices.Equal(got, want) {
		t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(g.Hashes) != len(g.Specs) {
		t.Errorf("%d hashes for %d points", len(g.Hashes), len(g.Specs))
	}
}

// The example of the README: per-block m and trials for graphical's
// strategies on one cycle.
func TestBlocksReadmeExample(t *testing.T) {
	g, err := ReadGrid(writeGrid(t, t.TempDir(), "ex", `processes   = ["graphical"]       # top-level keys: defaults for every block
seed        = 1
checkpoints = "log:100"
[[grid]]
balls_per_bin = [131072]
trials        = 6
params        = { strategy = ["greedy"], graph = ["cycle:1024"] }
[[grid]]
balls_per_bin = [65536]
params        = { strategy = ["haar"], graph = ["cycle:1024"] }
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"graphical graph=cycle:1024 strategy=greedy n=1024 m=134217728 trials=6 seed=1 cp=100 log=true",
		"graphical graph=cycle:1024 strategy=haar haar-scale=congestion n=1024 m=67108864 trials=1 seed=1 cp=100 log=true",
	}
	if got := describeAll(g); !slices.Equal(got, want) {
		t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A point's hash is its spec's, not the file's layout: the points of a
// single-grid file are the points (and hashes) of the same settings moved
// into a block, or split over blocks, and an empty block is the top level's
// grid once.
func TestBlocksSameHashesAsSingleGrid(t *testing.T) {
	dir := t.TempDir()
	single := "processes = [\"two-choice\", \"g-myopic-comp\", \"d-choice\", \"one-plus-beta\"]\nbins = [100, \"1e3\"]\n" +
		"balls_per_bin = [50]\ntrials = 2\nseed = 7\ncheckpoints = 4\nalpha = 0.5\n[params]\ng = [0, 2]\nd = [3, 4.0]\nbeta = [0.5, 1e-1]\n"
	a, err := ReadGrid(writeGrid(t, dir, "single", single))
	if err != nil {
		t.Fatal(err)
	}
	// The hashes TestGridHashesUnchangedWithoutFiles pins.
	if a.Hashes[0] != "9e75281f4dc648d4" || a.Hashes[5] != "9167c1d9fd64f5f7" || a.Hashes[10] != "261126e0be14d8c7" {
		t.Fatalf("single-grid hashes changed: %q", a.Hashes)
	}
	empty, err := ReadGrid(writeGrid(t, dir, "empty", single+"[[grid]]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(empty.Hashes, a.Hashes) || !slices.Equal(describeAll(empty), describeAll(a)) {
		t.Errorf("an empty [[grid]] block: %q, want the top level's grid %q", empty.Hashes, a.Hashes)
	}
	// Everything in blocks, one per bins value and process group.
	moved := "balls_per_bin = [50]\nseed = 7\ncheckpoints = 4\nalpha = 0.5\n" +
		"[[grid]]\nprocesses = [\"two-choice\", \"g-myopic-comp\", \"d-choice\", \"one-plus-beta\"]\nbins = [100]\ntrials = 2\n" +
		"[grid.params]\ng = [0, 2]\nd = [3, 4.0]\nbeta = [0.5, 1e-1]\n" +
		"[[grid]]\nprocesses = [\"two-choice\", \"g-myopic-comp\"]\nbins = [\"1e3\"]\ntrials = 5\nparams = { g = [0, 2] }\n" +
		"[[grid]]\nprocesses = [\"d-choice\", \"one-plus-beta\"]\nbins = [1000]\n[grid.params]\nd = [3, 4]\nbeta = [0.5, 0.1]\n"
	b, err := ReadGrid(writeGrid(t, dir, "moved", moved))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slices.Sorted(slices.Values(b.Hashes)), slices.Sorted(slices.Values(a.Hashes))) {
		t.Errorf("the single grid's points moved into blocks: hashes\n%q\nwant (in some order)\n%q", b.Hashes, a.Hashes)
	}
	for i, s := range b.Specs {
		want := 2
		if s.Bins == 1000 && (s.Process.Name == "two-choice" || s.Process.Name == "g-myopic-comp") {
			want = 5
		} else if s.Bins == 1000 {
			want = 1
		}
		if s.Trials != want {
			t.Errorf("point %d (%s): %d trials, want its block's %d", i, describe(s), s.Trials, want)
		}
	}
}

// A point two blocks make is refused in one line naming the file, both
// blocks' lines and the point; so is a point two spellings make inside one
// block, as in a file without blocks.
func TestBlocksDuplicatePointRefused(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadGrid(writeGrid(t, dir, "dup", "processes = [\"two-choice\"]\nballs = [1000]\n"+
		"[[grid]]\nbins = [100]\ntrials = 3\n\n[[grid]]\nbins = [50, 100]\nprocesses = [\"d-choice\"]\n"+
		"[[grid]]\nbins = [\"1e2\"]\nprocesses = [\"two-choice\"]\ntrials = 9\n"))
	want := "dup.toml:10: [[grid]]: its grid point two-choice d=2 n=100 m=1000 (spec "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "also a point of the [[grid]] block of line 3;") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a point in two blocks: %v; want one line with %q and line 3", err, want)
	}
	_, err = ReadGrid(writeGrid(t, dir, "dup1", "processes = [\"two-choice\"]\nballs = [1000]\n[[grid]]\nbins = [100]\n[[grid]]\nbins = [100, \"1e2\"]\n"))
	if err == nil || !strings.HasPrefix(err.Error(), strings.TrimSpace(dir+"/dup1.toml:6: bins: lists 1e2 twice")) {
		t.Errorf("a value twice inside a block: %v", err)
	}
}

// Bad input in a block names the file, its line and the key, as in a file
// without blocks; a top-level value that fails in one block says which;
// [grid] and grid = ... are refused.
func TestBlocksBadInputRefused(t *testing.T) {
	dir := t.TempDir()
	const top = "processes = [\"two-choice\", \"d-choice\"]\nbins = [100]\nballs = [1000]\n"
	for _, c := range []struct{ name, text, want string }{
		{"key", top + "[[grid]]\ntrials = 2\n\n[[grid]]\ntrails = 3\n", "key.toml:8: trails: not a sweep setting (known: process, processes, bins,"},
		{"value", top + "[[grid]]\ntrials = 2\n[[grid]]\nseed = 1\nbins = [0]\n", "value.toml:8: bins: want at least 1 bin"},
		{"param", top + "[[grid]]\n[grid.params]\ng = [1]\nfrobs = 2\n", "param.toml:7: params.frobs: not a process parameter"},
		{"inline", top + "[[grid]]\nparams = { g = [-1] }\n", "inline.toml:5: params.g: "},
		{"unused", top + "[[grid]]\nprocess = \"two-choice\"\nparams = { beta = [0.5] }\n", "unused.toml:6: params.beta: applies to none of two-choice"},
		{"topunused", top + "[params]\nbeta = 0.5\n[[grid]]\nbins = [10]\n[[grid]]\n", "topunused.toml:5: params.beta: applies to none of two-choice, d-choice"},
		{"inherited", "processes = [\"d-choice\"]\nbins = [100]\nballs = [1000]\nengine = \"bogus\"\n[[grid]]\n", "inherited.toml:4: engine: "},
		{"noprocess", "bins = [100]\nballs = [1000]\n[[grid]]\ntrials = 2\n[[grid]]\nprocess = \"two-choice\"\n", "noprocess.toml:3: [[grid]]: no processes"},
		{"both", top + "[[grid]]\nprocess = \"two-choice\"\nprocesses = [\"d-choice\"]\n", "both.toml:6: processes: give process or processes, not both"},
		{"table", top + "[grid]\ntrials = 2\n", "table.toml:4: grid: a [grid] table; write [[grid]]"},
		{"assign", top + "grid = [{ trials = 2 }]\n", "assign.toml:4: grid: give each block of the sweep as a [[grid]] section"},
		{"scalar", top + "grid = 3\n", "scalar.toml:4: grid: give each block"},
		{"topkey", top + "trails = 2\n[[grid]]\n", "topkey.toml:4: trails: not a sweep setting"},
		{"nested", top + "[[grid]]\n[[grid.grid]]\ntrials = 2\n", "nested.toml:5: grid: not a sweep setting"},
	} {
		_, err := ReadGrid(writeGrid(t, dir, c.name, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line containing %q", c.name, err, c.want)
		}
	}
	// A top-level value a block's point refuses names the block.
	_, err := ReadGrid(writeGrid(t, dir, "which", "process = \"d-choice\"\nbins = [100]\nballs = [1000]\ncheckpoints = 5000\n[[grid]]\nballs = [1e5]\n[[grid]]\nballs = [100]\n"))
	if want := "which.toml:4: checkpoints: --checkpoints 5000: want at most --balls (100), one checkpoint per ball at most (in the [[grid]] block of line 7)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("a top-level value refused in a block: %v; want %q", err, want)
	}
}

// A number in a block is taken exactly as written, as at the top level:
// the block's literal, never the top level's.
func TestBlocksNumbersAsWritten(t *testing.T) {
	g, err := ReadGrid(writeGrid(t, t.TempDir(), "n", "process = \"two-choice\"\nbins = [10]\nballs = [2.5e3]\nseed = 2.0\n"+
		"[[grid]]\n[[grid]]\nseed = 9007199254740993.0   # 2^53 + 1\nballs = [1e3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Specs) != 2 || g.Specs[0].Seed != 2 || g.Specs[0].Balls != 2500 || g.Specs[1].Seed != 1<<53+1 || g.Specs[1].Balls != 1000 {
		t.Errorf("points: %q", describeAll(g))
	}
}
