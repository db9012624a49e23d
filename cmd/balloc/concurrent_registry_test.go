package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core/process"
)

// balloc concurrent's process flags, help and comparisons come from the
// catalogue: every parameter a concurrent rule reads is a flag of the
// command, taken by exactly the processes whose rule reads it, and every
// process of the catalogue with a rule is in the help and runs.
func TestConcurrentTakesProcessesFromTheRegistry(t *testing.T) {
	c := newConcurrentCommand(io.Discard)
	help := c.Long
	for _, e := range process.ConcurrentProcesses() {
		if !strings.Contains(help, e.Name) {
			t.Errorf("%s has a concurrent rule but the help does not name it", e.Name)
		}
		r, _ := e.ConcurrentRule()
		for _, q := range r.Params {
			if !e.Takes(q.Name) {
				continue // fixed by the alias
			}
			f := c.Flags().Lookup(q.Name)
			if f == nil {
				t.Errorf("%s's rule reads --%s, which balloc concurrent lacks", e.Name, q.Name)
				continue
			}
			if !strings.Contains(f.Usage, e.Name) || !strings.HasSuffix(f.Usage, q.Usage) {
				t.Errorf("--%s's usage %q: want %s named and the rule's own usage", q.Name, f.Usage, e.Name)
			}
		}
	}
	// A flag of another process's rule is refused by name, one line.
	code, _, errs := run(t, "concurrent", "--process", "one-choice", "--d", "3", "--bins", "10", "--balls", "10")
	if code != 2 || errs != "balloc: --d does not apply to one-choice\n" {
		t.Errorf("one-choice --d: exit %d, %q", code, errs)
	}
	for _, name := range concurrency.DepartureProcesses() {
		if e, _ := process.Lookup(name); e == nil {
			t.Errorf("departure process %q not in the catalogue", name)
		}
	}
}

// A process whose rule has models is compared with them, by the names its
// rule gives; one without models (d-choice at d = 3) is not.
func TestConcurrentComparesByTheRulesModels(t *testing.T) {
	for _, c := range []struct {
		args     []string
		compared bool
	}{
		{[]string{"--process", "d-choice", "--d", "2"}, true},
		{[]string{"--process", "d-choice", "--d", "3"}, false},
		{[]string{"--process", "one-plus-beta", "--beta", "0.5"}, false},
	} {
		args := append([]string{"concurrent", "--bins", "20", "--balls", "2000", "--emulate", "3", "--format", "json"}, c.args...)
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, errs)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("%v: %v", c.args, err)
		}
		fresh, ok := rows[0]["two_choice"].(map[string]any)
		if ok != c.compared {
			t.Errorf("%v: compared %v, want %v", c.args, ok, c.compared)
		}
		if ok && (fresh["process"] != "two-choice" || rows[0]["tau_delay"].(map[string]any)["process"] != "tau-delay" || rows[0]["b_batch"].(map[string]any)["process"] != "b-batch") {
			t.Errorf("%v: models %v, %v, %v", c.args, fresh["process"], rows[0]["tau_delay"], rows[0]["b_batch"])
		}
	}
}
