package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/units"
)

// balloc concurrent --trace-ages: a goroutine run gets every ball's age and
// the replay row, with the emulated path's top-level JSON fields, the
// untraced twin's speed and gap, and the preempted count; the saved ages
// replay to the replay_gap printed.
func TestConcurrentTraceAges(t *testing.T) {
	if err := concurrency.TSCCheck(); err != nil {
		t.Skipf("no tracing here: %v", err)
	}
	path := filepath.Join(t.TempDir(), "ages")
	code, out, errs := run(t, "concurrent", "--process", "two-choice", "--bins", "100", "--balls", "100000", "--workers", "2",
		"--trace-ages", "--save-ages", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for _, k := range []string{"gap", "balls_per_s", "age_p50", "age_p90", "age_p99", "age_max", "replay_gap", "iid_ages_gap", "tau_delay_gap", "b_batch_gap",
		"untraced_balls_per_s", "untraced_gap", "traced_preempted"} {
		if _, ok := rows[0][k].(float64); !ok {
			t.Errorf("no top-level number %q in %v", k, rows[0])
		}
	}
	if rows[0]["ages_of"] != "every ball, from its TSC stamps" {
		t.Errorf("ages_of %v", rows[0]["ages_of"])
	}
	c := core.Common{Bins: 100, Balls: 100000, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect}
	s, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay", "replay": path}, c)
	if err != nil {
		t.Fatal(err)
	}
	if gap := engine.RunTrial(s, 1<<20, nil).Gap; gap != rows[0]["replay_gap"] {
		t.Errorf("the saved ages replay to gap %v, the run printed %v", gap, rows[0]["replay_gap"])
	}
	if data, err := os.ReadFile(path); err != nil || strings.Count(string(data), "\n") != 100000 {
		t.Errorf("saved ages: %v", err)
	}

	code, table, errs := run(t, "concurrent", "--process", "two-choice", "--bins", "100", "--balls", "100000", "--workers", "2", "--trace-ages", "--mode", "cas")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"from its time-stamp-counter stamps", "untraced, just before", "replay of its ages", "i.i.d. ages, same law",
		"cost: ", "preempted apart: ", "cannot see: ", "W = 2, trial 0: striped total "} {
		if !strings.Contains(table, want) {
			t.Errorf("the table has no %q:\n%s", want, table)
		}
	}
}

// What --trace-ages refuses, each in one line naming the flag, exit 2,
// before any work: emulated runs, local-batch and sharded, departures, a
// machine without an invariant TSC (the check replaced), and more memory
// than there is.
func TestConcurrentTraceAgesRefused(t *testing.T) {
	plain := []string{"concurrent", "--process", "two-choice", "--bins", "50", "--balls", "1000"}
	base := append(plain, "--trace-ages")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--emulate", "4"}, "--emulate"},
		{[]string{"--mode", "local-batch", "--batch", "4"}, "--mode local-batch"},
		{[]string{"--mode", "sharded"}, "--mode sharded"},
		{[]string{"--balls", "-", "--arrival-rate", "0.5", "--time", "2"}, "--arrival-rate"},
	}
	if avail := units.AvailableMemory(); avail > 0 && avail < 4e9*concurrency.TraceBytesPerBall && concurrency.TSCCheck() == nil {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--balls", "4e9"}, "--balls 4e9: --trace-ages keeps"})
	}
	for _, c := range cases {
		code, out, errs := run(t, append(with(plain, c.args), "--trace-ages")...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want one line naming %q", c.args, code, errs, c.want)
		}
	}
	saved := concurrency.TSCCheck
	defer func() { concurrency.TSCCheck = saved }()
	concurrency.TSCCheck = func() error { return errors.New("the CPU's time-stamp counter is not invariant") }
	code, out, errs := run(t, base...)
	if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--trace-ages: the CPU's time-stamp counter is not invariant") {
		t.Errorf("no invariant TSC: exit %d, %q", code, errs)
	}
	if code, _, errs := run(t, plain...); code != 0 {
		t.Errorf("without --trace-ages, no TSC needed: exit %d, %s", code, errs)
	}
}

// traceLegal is the legal value of --trace-ages in flagTable: true where
// this machine can trace, else false.
func traceLegal() string {
	if concurrency.TSCCheck() != nil {
		return "false"
	}
	return "true"
}
