package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/sweep"
)

// The single grid of a folder swept before blocks, and a file that moved
// its point into a [[grid]] block beside a new block with its own trials.
const (
	singleGrid = "processes = [\"two-choice\"]\nbins = [100]\nballs_per_bin = [50]\ntrials = 3\nseed = 5\ncheckpoints = 4\n"
	blockGrid  = "# the old point in a block, and a new block\nseed = 5\ncheckpoints = 4\nballs_per_bin = [50]\n" +
		"[[grid]]\nprocesses = [\"two-choice\"]\nbins = [100]\ntrials = 3\n" +
		"[[grid]]\nprocess = \"g-myopic-comp\"\nbins = [200]\ntrials = 2\nparams = { g = [1] }\n"
)

// A folder a single-grid file made is continued by a file holding its
// point in a block beside a new block: only the new block's trials run,
// the lines there stay byte for byte, and the folder is the blocked file's
// sweep run at once. Raising one block's trials runs only those; a file
// without the old point is refused as before.
func TestSweepBlocksResumeSingleGridFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, singleGrid)
	sw := filepath.Join(dir, "s")
	if code, out, errs := run(t, "sweep", file, "--out", sw); code != 0 || !strings.Contains(out, "3 trials run, 0 were already there; 1 grid points") {
		t.Fatalf("single grid: exit %d %q %q", code, out, errs)
	}
	old, err := os.ReadFile(filepath.Join(sw, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, blockGrid)
	code, out, errs := run(t, "sweep", file, "--out", sw)
	if code != 0 || !strings.Contains(out, "2 trials run, 3 were already there; 2 grid points") {
		t.Fatalf("blocked file on the single grid's folder: exit %d %q %q", code, out, errs)
	}
	now, _ := os.ReadFile(filepath.Join(sw, "results.jsonl"))
	if !bytes.HasPrefix(now, old) || bytes.Count(now, []byte("\n")) != 5 {
		t.Errorf("the old point's lines changed, or not 5 lines: %d", bytes.Count(now, []byte("\n")))
	}
	whole := filepath.Join(dir, "whole")
	if code, _, errs := run(t, "sweep", file, "--out", whole); code != 0 {
		t.Fatal(errs)
	}
	if !slices.Equal(resultLines(t, sw), resultLines(t, whole)) {
		t.Error("the single grid grown by a block differs from the blocked sweep run at once")
	}
	man, err := sweep.ReadManifest(sw)
	if err != nil || len(man.Grid) != 2 || man.Grid[0].Trials != 3 || man.Grid[1].Trials != 2 || man.Source != blockGrid {
		t.Errorf("manifest: %v %+v", err, man)
	}

	writeFile(t, file, strings.Replace(blockGrid, "trials = 2", "trials = 4", 1))
	code, out, errs = run(t, "sweep", file, "--out", sw)
	if code != 0 || !strings.Contains(out, "2 trials run, 5 were already there; 2 grid points") {
		t.Fatalf("the new block's trials 2 → 4: exit %d %q %q", code, out, errs)
	}
	if now2, _ := os.ReadFile(filepath.Join(sw, "results.jsonl")); !bytes.HasPrefix(now2, now) {
		t.Error("raising a block's trials changed the lines there")
	}
	// The single-grid file lacks the new block's point: refused.
	writeFile(t, file, singleGrid)
	code, out, errs = run(t, "sweep", file, "--out", sw)
	oneLineExit2(t, "single grid on the blocked folder", code, out, errs, "holds results of a different sweep: its grid point g-myopic-comp g=1 n=200 m=10000")
}

// summarize shows each point of a blocked sweep with its own block's
// trials; shards of it merge to it (per-point trials in the shard split),
// and balloc slurm takes the file.
func TestSweepBlocksSummarizeMergeSlurm(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "b.toml")
	writeFile(t, file, blockGrid)
	sw := filepath.Join(dir, "b")
	if code, _, errs := run(t, "sweep", file, "--out", sw); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := run(t, "summarize", sw)
	if code != 0 {
		t.Fatal(errs)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "two-choice") || strings.HasPrefix(l, "g-myopic-comp") {
			rows = append(rows, strings.Join(strings.Fields(l)[:5], " "))
		}
	}
	if want := []string{"two-choice d=2 100 5e3 3/3", "g-myopic-comp g=1 200 1e4 2/2"}; !slices.Equal(rows, want) {
		t.Errorf("summarize rows %q, want %q\n%s", rows, want, out)
	}
	code, out, errs = run(t, "summarize", sw, "--format", "csv")
	if code != 0 {
		t.Fatal(errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := func(name string) int { return slices.Index(head, name) }
	planned := map[string]string{}
	for _, r := range recs[1:] {
		planned[r[col("process")]] = r[col("trials")] + "/" + r[col("trials_planned")]
	}
	if planned["two-choice"] != "3/3" || planned["g-myopic-comp"] != "2/2" {
		t.Errorf("csv trials/trials_planned: %v", planned)
	}
	if code, _, errs := run(t, "plot", sw, "--kind", "gap-distribution", "--out", filepath.Join(dir, "d.svg")); code != 0 {
		t.Errorf("plot of a blocked sweep: %s", errs)
	}

	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, d)
		if code, _, errs := run(t, "sweep", file, "--out", d, "--shard", fmt.Sprintf("%d/2", i)); code != 0 {
			t.Fatal(errs)
		}
	}
	merged := filepath.Join(dir, "merged")
	code, out, errs = run(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
	if code != 0 || !strings.Contains(out, "5 of 5 trials from 2 folders; 0 duplicated") {
		t.Errorf("merge of a blocked sweep's shards: exit %d %q %q", code, out, errs)
	}
	if !slices.Equal(resultLines(t, merged), resultLines(t, sw)) {
		t.Error("the merged shards differ from the blocked sweep")
	}
	if code, _, errs := run(t, "slurm", file, "--tasks", "2", "--out", filepath.Join(dir, "slurm-out")); code != 0 {
		t.Errorf("slurm of a blocked file: %s", errs)
	}
}

// Bad input in a block: one line naming the file, the line and the key,
// exit 2, before any work (no folder made).
func TestSweepBlocksBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{blockGrid + "[[grid]]\nprocess = \"two-choice\"\nbins = [10]\ntrails = 3\n", "b.toml:17: trails: not a sweep setting"},
		{blockGrid + "[[grid]]\nprocess = \"two-choice\"\nbins = [100]\n", "b.toml:14: [[grid]]: its grid point two-choice d=2 n=100 m=5000 (spec "},
		{blockGrid + "[grid]\n", "b.toml:"},
	} {
		file := filepath.Join(dir, "b.toml")
		writeFile(t, file, c.text)
		code, out, errs := run(t, "sweep", file, "--out", filepath.Join(dir, "never"))
		oneLineExit2(t, c.text, code, out, errs, c.want)
		if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
			t.Errorf("a refused file made its folder: %v", err)
		}
		code, out, errs = run(t, "slurm", file, "--tasks", "2", "--out", filepath.Join(dir, "never"))
		oneLineExit2(t, "slurm: "+c.text, code, out, errs, c.want)
	}
}
