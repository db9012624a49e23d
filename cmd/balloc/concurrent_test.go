package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// An emulated run's ages, saved and replayed by balloc run, give the
// replay_gap the concurrent run printed (the same trial of the same spec);
// the JSON object of a run carries the headline figures at the top level.
func TestConcurrentSaveAgesReplays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ages")
	code, out, errs := run(t, "concurrent", "--process", "two-choice", "--bins", "50", "--balls", "20000", "--emulate", "200",
		"--save-ages", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for _, k := range []string{"gap", "balls_per_s", "age_p50", "age_p90", "age_p99", "age_max", "replay_gap", "iid_ages_gap", "tau_delay_gap", "b_batch_gap"} {
		if _, ok := rows[0][k].(float64); !ok {
			t.Errorf("no top-level number %q in %v", k, rows[0])
		}
	}
	if rows[0]["ages_of"] != "every ball" {
		t.Errorf("ages_of %v", rows[0]["ages_of"])
	}
	// The saved file, replayed as compareRun does (trial 2^20 for trial 0),
	// gives the replay_gap printed.
	c := core.Common{Bins: 50, Balls: 20000, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect}
	s, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay", "replay": path}, c)
	if err != nil {
		t.Fatal(err)
	}
	if gap := engine.RunTrial(s, 1<<20, nil).Gap; gap != rows[0]["replay_gap"] {
		t.Errorf("the saved ages replay to gap %v, the run printed %v", gap, rows[0]["replay_gap"])
	}
	data, err := os.ReadFile(path)
	if err != nil || strings.Count(string(data), "\n") != 20000 {
		t.Fatalf("saved ages: %v, %d lines", err, strings.Count(string(data), "\n"))
	}
	// The file is not overwritten.
	code, _, errs = run(t, "concurrent", "--process", "two-choice", "--bins", "50", "--balls", "20000", "--emulate", "2", "--save-ages", path)
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--save-ages") || !strings.Contains(errs, "exists") {
		t.Errorf("an existing --save-ages file: exit %d, %q", code, errs)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(data) {
		t.Error("the existing file was changed")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "2"}, "add --emulate W"},
		{[]string{"--emulate", "2", "--trials", "2"}, "set --trials 1"},
		{[]string{"--mode", "sharded", "--workers", "257"}, "--workers 257: --mode sharded"},
		{[]string{"--mode", "sharded", "--emulate", "1025"}, "--emulate 1025: --mode sharded"},
	} {
		args := append([]string{"concurrent", "--process", "two-choice", "--bins", "50", "--balls", "100", "--save-ages", filepath.Join(t.TempDir(), "x")}, c.args...)
		code, out, errs := run(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want one line naming %q", c.args, code, errs, c.want)
		}
	}
}

// The JSON's shard totals are {"shard": balls} of the shards that got balls:
// with n = 10 the ten shards holding a bin, not 64 entries of which 54 are 0;
// with n = 1000 (16 bins a shard) the 63 holding one, keyed in numeric order.
func TestConcurrentJSONShardTotalsNonZero(t *testing.T) {
	for _, n := range []int{10, 1000} {
		concurrentShards(t, n)
	}
}

func concurrentShards(t *testing.T, n int) {
	code, out, errs := run(t, "concurrent", "--process", "two-choice", "--bins", strconv.Itoa(n), "--balls", "100000", "--workers", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []struct {
		Concurrent struct {
			ShardTotals map[string]uint64 `json:"shard_totals"`
		} `json:"concurrent"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	st, sum := rows[0].Concurrent.ShardTotals, uint64(0)
	held := min(n, 63)
	for i := range held {
		x, ok := st[strconv.Itoa(i)]
		if !ok || x == 0 {
			t.Errorf("shard %d: %d, present %v", i, x, ok)
		}
		sum += x
	}
	if len(st) != held || sum != 100000 {
		t.Errorf("n = %d: shard totals %v: %d entries adding up to %d, want %d adding up to 100000", n, st, len(st), sum, held)
	}
	if n == 1000 && strings.Index(out, `"10": `) < strings.Index(out, `"9": `) {
		t.Errorf("shard keys out of numeric order:\n%s", out)
	}
}

// Every mode at every size, at the command's defaults (--compare on,
// --measure-every 256, packed; local-batch, which has no default batch,
// with --batch 64): goroutine and emulated runs of W = 1, 2, 4 workers on
// n = 2, 64, 1000 and 2^20 bins end, their loads hold every ball (Run
// checks the loads and each worker's tally; here the shard totals and the
// tallies printed add up to m), the comparisons ran for two-choice (and
// the replay for emulated runs), and sharded rows carry their age bound.
// Under the race detector only the goroutine runs on n ≤ 1000 (raceOn).
func TestConcurrentDefaultsEveryModeAndSize(t *testing.T) {
	m := 3000
	if !testing.Short() {
		m = 100000
	}
	for _, n := range []int{2, 64, 1000, 1 << 20} {
		if raceOn && n > 1000 {
			continue // the size changes no goroutine's work but its cost under the detector
		}
		for _, mode := range []string{"racy", "cas", "local-batch", "sharded"} {
			for _, w := range []int{1, 2, 4} {
				for _, how := range []string{"--workers", "--emulate"} {
					if raceOn && how == "--emulate" {
						continue // one goroutine: nothing for the race detector
					}
					name := strconv.Itoa(n) + "/" + mode + "/" + how[2:] + "=" + strconv.Itoa(w)
					t.Run(name, func(t *testing.T) {
						args := []string{"concurrent", "--process", "two-choice", "--bins", strconv.Itoa(n), "--balls", strconv.Itoa(m),
							"--mode", mode, how, strconv.Itoa(w), "--format", "json"}
						if mode == "local-batch" {
							args = append(args, "--batch", "64")
						}
						code, out, errs := run(t, args...)
						if code != 0 {
							t.Fatalf("exit %d: %s", code, errs)
						}
						var rows []struct {
							Workers      int      `json:"workers"`
							TwoChoiceGap *float64 `json:"two_choice_gap"`
							ReplayGap    *float64 `json:"replay_gap"`
							AgeBound     uint64   `json:"age_bound"`
							AgeMax       uint64   `json:"age_max"`
							Concurrent   struct {
								ShardTotals  map[string]uint64 `json:"shard_totals"`
								WorkerPlaced []uint64          `json:"worker_placed"`
							} `json:"concurrent"`
						}
						if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
							t.Fatalf("json: %v\n%s", err, out)
						}
						r := rows[0]
						shards, placed := uint64(0), uint64(0)
						for _, x := range r.Concurrent.ShardTotals {
							shards += x
						}
						for _, x := range r.Concurrent.WorkerPlaced {
							placed += x
						}
						if shards != uint64(m) || placed != uint64(m) || len(r.Concurrent.WorkerPlaced) != w || r.Workers != w {
							t.Errorf("shard totals %d, tallies %v (%d), of m = %d", shards, r.Concurrent.WorkerPlaced, placed, m)
						}
						if r.TwoChoiceGap == nil || (how == "--emulate") != (r.ReplayGap != nil) {
							t.Errorf("comparisons: two-choice gap %v, replay gap %v", r.TwoChoiceGap, r.ReplayGap)
						}
						if bound := 2560 * uint64(w); mode == "sharded" && (r.AgeBound != bound || r.AgeMax >= bound) {
							t.Errorf("age bound %d (want %d), max age %d", r.AgeBound, bound, r.AgeMax)
						}
					})
				}
			}
		}
	}
}

// balloc concurrent's help speaks of its own flags and processes, and its
// output cites the paper by authors, title and section, never a file.
func TestConcurrentWordsAUserCanCheck(t *testing.T) {
	code, help, _ := run(t, "concurrent", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, bad := range []string{"hypergraph", "idea", "g-adv-comp", "kd-choice", "always-go-left", "(default true)"} {
		if strings.Contains(help, bad) {
			t.Errorf("concurrent --help mentions %q", bad)
		}
	}
	if !strings.Contains(help, "--compare=false") {
		t.Errorf("concurrent --help does not say how to turn --compare off")
	}
	code, out, errs := run(t, "concurrent", "--process", "two-choice", "--bins", "50", "--balls", "5000", "--emulate", "4", "--mode", "sharded")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, bad := range []string{".txt", "stored text", "papers/"} {
		if strings.Contains(out, bad) {
			t.Errorf("the output cites %q", bad)
		}
	}
	for _, want := range []string{"Los and Sauerwald, \"Balanced Allocations with the Choice of Noise\" (PODC 2022), §1",
		"backpressure keeps every ball's age below W·(1024 + 1024 + 2·256) balls (10240 with W = 4)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}
