package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// balloc concurrent --arrival-rate: one JSON object per run with the
// supermarket figures at the top level beside the age figures, the
// sequential run's and the fixed point; the balls the bins hold are the
// arrivals minus the departures; the same emulated run twice prints the
// same figures; the table names the model and its fixed point.
func TestConcurrentDeparturesJSON(t *testing.T) {
	args := []string{"concurrent", "--process", "two-choice", "--bins", "100", "--arrival-rate", "0.9", "--events", "2e5", "--warmup", "100",
		"--emulate", "4", "--trials", "2", "--measure-every", "4", "--format", "json"}
	code, out, errs := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for _, r := range rows {
		for _, k := range []string{"gap", "arrival_rate", "events", "time", "warmup", "arrivals", "departures", "events_per_s", "mean_queue", "mean_queue_se",
			"final_mean_queue", "max_queue", "max_ever", "time_samples", "age_p50", "age_p99", "age_max",
			"sequential_gap", "sequential_mean_queue", "sequential_final_mean_queue", "sequential_max_queue"} {
			if _, ok := r[k].(float64); !ok {
				t.Errorf("no top-level number %q", k)
			}
		}
		for _, k := range []string{"final_at_least", "at_least", "at_least_se", "sequential_final_at_least", "sequential_at_least", "fixed_point"} {
			if xs, ok := r[k].([]any); !ok || len(xs) < 3 {
				t.Errorf("no top-level list %q of at least 3 levels: %v", k, r[k])
			}
		}
		if r["ages_of"] != "every arrival" || r["events"] != 2e5 || r["replay_gap"] != nil {
			t.Errorf("ages_of %v, events %v, replay_gap %v", r["ages_of"], r["events"], r["replay_gap"])
		}
		a, d, q := r["arrivals"].(float64), r["departures"].(float64), r["final_mean_queue"].(float64)
		if math.Abs((a-d)/100-q) > 1e-12 || a+d > 2e5 {
			t.Errorf("arrivals %v, departures %v, final mean queue %v", a, d, q)
		}
		if fp := r["fixed_point"].([]any); math.Abs(fp[1].(float64)-0.729) > 1e-12 {
			t.Errorf("fixed point π_2 = %v, want 0.9^3", fp[1])
		}
	}
	_, again, _ := run(t, args...)
	var rows2 []map[string]any
	if err := json.Unmarshal([]byte(again), &rows2); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"arrivals", "departures", "gap", "mean_queue", "age_p99", "max_ever"} {
		if rows[1][k] != rows2[1][k] {
			t.Errorf("the emulated run twice: %s %v then %v", k, rows[1][k], rows2[1][k])
		}
	}
	code, table, errs := run(t, "concurrent", "--process", "d-choice", "--d", "3", "--bins", "1000", "--arrival-rate", "0.5", "--time", "20", "--workers", "2", "--mode", "cas")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"supermarket model, λ = 0.5", "sequential", "fixed point: JSQ(3)", "CAS retries arrivals/departures", "time-averaged ≥ i"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table has no %q:\n%s", want, table)
		}
	}
	code, table, errs = run(t, "concurrent", "--process", "two-thinning", "--threshold", "0.5", "--bins", "1000", "--arrival-rate", "0.9", "--time", "20", "--emulate", "8")
	if code != 0 || !strings.Contains(table, "fixed point: the mean-field ODE") {
		t.Errorf("two-thinning: exit %d, %s\n%s", code, errs, table)
	}
}

// The cross-checks of departures: one stderr line naming the flag, exit 2,
// nothing on stdout.
func TestConcurrentDeparturesBadInput(t *testing.T) {
	base := []string{"concurrent", "--bins", "4"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--process", "two-choice", "--balls", "8", "--arrival-rate", "0.5", "--time", "2"}, "--balls"},
		{[]string{"--process", "two-choice", "--arrival-rate", "1", "--time", "2"}, "--arrival-rate"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0", "--time", "2"}, "--arrival-rate"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.5"}, "--time"},
		{[]string{"--process", "two-choice", "--balls", "8", "--events", "9"}, "--events"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.5", "--time", "2", "--mode", "sharded"}, "--mode sharded"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.5", "--time", "2", "--mode", "local-batch", "--batch", "2"}, "--mode local-batch"},
		{[]string{"--process", "g-myopic-comp", "--g", "1", "--arrival-rate", "0.5", "--time", "2"}, "--arrival-rate"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.5", "--time", "2", "--emulate", "2", "--save-ages", t.TempDir() + "/a"}, "--save-ages"},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.5", "--time", "2", "--warmup", "2"}, "--warmup"},
	} {
		code, out, errs := run(t, append(append([]string(nil), base...), c.args...)...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want one line naming %q", c.args, code, errs, c.want)
		}
	}
}
