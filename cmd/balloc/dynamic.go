package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// Balls that leave: balloc run's flags for the supermarket model and the
// deletions model, and their table (core/dynamic.go has the conventions).

type dynamicFlags struct {
	arrivalRate, time, events, warmup           string
	updatePeriod, updateDelay, updateIndividual string
	deleteProb, delete                          string
	phases                                      string
}

func addDynamicFlags(fl *pflag.FlagSet, f *dynamicFlags) {
	fl.StringVar(&f.arrivalRate, "arrival-rate", "", "the supermarket model: balls arrive at rate λ·n (0 < λ < 1), each non-empty bin serves one at rate 1; replaces --balls by --time or --events")
	fl.StringVar(&f.time, "time", "", "with --arrival-rate: run time T, as round(n(1+λ)·T) events")
	fl.StringVar(&f.events, "events", "", "with --arrival-rate: run E events (arrivals and potential departures) instead of --time")
	fl.StringVar(&f.warmup, "warmup", "", "with --arrival-rate: time left out of the time averages (default 0)")
	fl.StringVar(&f.updatePeriod, "update-period", "", "with --arrival-rate: arrivals decide on a board of the loads refreshed every T time units (the periodic update model; direct engine) (0: fresh loads, as if not given)")
	fl.StringVar(&f.updateDelay, "update-delay", "", "with --arrival-rate: arrivals decide on the loads as they were exactly T time units before (the continuous update model; direct engine) (0: fresh loads, as if not given)")
	fl.StringVar(&f.updateIndividual, "update-individual", "", "with --arrival-rate: arrivals decide on a board whose every entry is refreshed at its own Poisson times, mean T apart (individual updates; direct engine) (0: fresh loads, as if not given)")
	fl.StringVar(&f.deleteProb, "delete-prob", "", "deletions: each of --balls steps removes a ball with probability p (0 ≤ p < 1), else inserts by the process")
	fl.StringVar(&f.delete, "delete", "", "with --delete-prob or --phases: ball (a uniformly random ball, the default) or bin (one ball of a uniformly random non-empty bin)")
	fl.StringVar(&f.phases, "phases", "", "deletions in phases: +a,-b,+c,… inserts a balls by the process, then deletes b by --delete, then inserts c, …; --balls is their total (may be left out)")
}

// parseDynamic reads the dynamic flags into com (NewSpec checks them
// against the process and the bins).
func parseDynamic(fl *pflag.FlagSet, f *dynamicFlags, com *core.Common) error {
	d := &com.Dynamic
	if err := parseSupermarket(fl, f, d); err != nil {
		return err
	}
	if err := parseDeletions(fl, f, d); err != nil {
		return err
	}
	if !d.Supermarket() {
		for _, name := range []string{"time", "events", "warmup", "update-period", "update-delay", "update-individual"} {
			if fl.Changed(name) {
				what := "it sets the length of a supermarket run"
				if strings.HasPrefix(name, "update-") {
					what = "stale loads are a setting of the supermarket model"
				}
				return fmt.Errorf("--%s: %s; add --arrival-rate λ", name, what)
			}
		}
	}
	return nil
}

// realFlag reads a real-valued flag that was given into dst, checked by
// rule.
func realFlag(fl *pflag.FlagSet, name, v string, dst *float64, rule func(float64) string) error {
	if !fl.Changed(name) {
		return nil
	}
	x, err := process.ParseReal(v)
	if err != nil {
		return fmt.Errorf("--%s %q: %v", name, v, err)
	}
	if why := rule(x); why != "" {
		return fmt.Errorf("--%s %v: %s", name, x, why)
	}
	*dst = x
	return nil
}

// positiveTime is --time's rule: 0 < T ≤ 1e15.
func positiveTime(x float64) string {
	if why := core.TimeRule(x); why != "" || x == 0 {
		return "want a time T with 0 < T ≤ 1e15"
	}
	return ""
}

// parseSupermarket reads the supermarket model's flags: its rate, length,
// warm-up and stale loads.
func parseSupermarket(fl *pflag.FlagSet, f *dynamicFlags, d *core.Dynamic) error {
	if err := realFlag(fl, "arrival-rate", f.arrivalRate, &d.ArrivalRate, core.ArrivalRateRule); err != nil {
		return err
	}
	if err := realFlag(fl, "time", f.time, &d.Time, positiveTime); err != nil {
		return err
	}
	if fl.Changed("events") {
		e, err := parseCountFlag("events", f.events)
		if err != nil {
			return err
		}
		if e == 0 {
			return fmt.Errorf("--events 0: want at least 1 event")
		}
		d.Events = e
	}
	// The stale-load settings take 0 as a sweep file does (core/sweep,
	// dynamic.go): loads 0 time units old are fresh, the model without a
	// board, as if the flag were not given.
	for _, c := range []struct {
		name string
		v    string
		dst  *float64
	}{{"warmup", f.warmup, &d.Warmup}, {"update-period", f.updatePeriod, &d.UpdatePeriod},
		{"update-delay", f.updateDelay, &d.UpdateDelay}, {"update-individual", f.updateIndividual, &d.UpdateIndividual}} {
		if err := realFlag(fl, c.name, c.v, c.dst, core.TimeRule); err != nil {
			return err
		}
	}
	return nil
}

// parseDeletions reads the deletions model's flags.
func parseDeletions(fl *pflag.FlagSet, f *dynamicFlags, d *core.Dynamic) error {
	if err := realFlag(fl, "delete-prob", f.deleteProb, &d.DeleteProb, core.DeleteProbRule); err != nil {
		return err
	}
	if fl.Changed("phases") {
		ph, err := core.ParsePhases(f.phases)
		if err != nil {
			return fmt.Errorf("--phases %q: %v", f.phases, err)
		}
		d.Phases = ph
	}
	if fl.Changed("delete") {
		if why := core.DeleteRule(f.delete); why != "" {
			return fmt.Errorf("--delete %q: %s", f.delete, why)
		}
		if !fl.Changed("delete-prob") && !fl.Changed("phases") {
			return fmt.Errorf("--delete: it says which ball a deletion removes; add --delete-prob p or --phases")
		}
		d.Delete = f.delete
	}
	return nil
}
