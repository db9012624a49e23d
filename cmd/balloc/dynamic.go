package main

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
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

// dynamicTable prints, per spec of a supermarket run, the time-averaged
// fraction of bins with load ≥ i (the mean over trials, ± its standard
// error from the trials' batch means), the final fraction, and with
// --theory the fixed point and the distance to it in standard errors; and
// the mean queue length, Little's sojourn time and the largest load.
func (w *writer) dynamicTable() {
	w.phaseTable()
	for i, rs := range w.dyn {
		if len(rs) == 0 || rs[0].Model != "supermarket" {
			continue
		}
		s := w.p.specs[i]
		fmt.Fprintf(w.w, "\n%s: supermarket model, λ = %s, %s events (time %s, warmup %s), %d trial(s); time averages after the warmup ± standard error (%d batch means)\n",
			strings.TrimSpace(s.Process.Name+" "+s.ParamsText()), g(s.Dynamic.ArrivalRate), units.FormatCount(rs[0].Events),
			g(rs[0].Time), g(rs[0].Warmup), len(rs), rs[0].Batches)
		mean := func(get func(*result.Dynamic) float64) (m float64) {
			for _, r := range rs {
				m += get(r) / float64(len(rs))
			}
			return m
		}
		q := mean(func(d *result.Dynamic) float64 { return d.MeanQueue })
		qse := combinedSE(rs, func(d *result.Dynamic) float64 { return d.MeanQueueSE })
		so := mean(func(d *result.Dynamic) float64 { return d.Sojourn })
		mx := mean(func(d *result.Dynamic) float64 { return d.MaxEver })
		fmt.Fprintf(w.w, "  mean queue length %s ± %.2g, mean sojourn time (Little: queue/λ) %s ± %.2g, largest load seen %s (mean over trials)\n",
			g(q), qse, g(so), qse/s.Dynamic.ArrivalRate, g(mx))
		for _, r := range rs {
			if limit := 2 / math.Sqrt(float64(r.Batches)); r.Batches > 1 && r.BatchLag1 > limit {
				fmt.Fprintf(w.w, "  warning: the batch means are correlated (lag-1 autocorrelation %.2f > 2/√%d): the batches are shorter than the relaxation time and the standard errors understated; lengthen --time\n", r.BatchLag1, r.Batches)
				break
			}
		}
		fp, model := core.SupermarketTheory(s)
		// Redundancy-d's prediction is of its jobs (its own block), not of
		// the copies per server this table counts.
		_, replicated := s.Proc.(process.Replicated)
		theory := w.p.theory && !replicated
		levels := 0
		for _, r := range rs {
			levels = max(levels, len(r.AtLeast), len(r.FinalAtLeast))
		}
		tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "  i\ttime-averaged ≥ i\t± se\tfinal ≥ i\t"
		if theory {
			head += "fixed point π_i\t(sim − π)/se\t"
		}
		fmt.Fprintln(tw, head)
		for k := range levels {
			at := func(xs []float64) float64 {
				if k < len(xs) {
					return xs[k]
				}
				return 0
			}
			avg := mean(func(d *result.Dynamic) float64 { return at(d.AtLeast) })
			fin := mean(func(d *result.Dynamic) float64 { return at(d.FinalAtLeast) })
			se := combinedSE(rs, func(d *result.Dynamic) float64 { return at(d.AtLeastSE) })
			line := fmt.Sprintf("  %d\t%s\t%.2g\t%s\t", k+1, fraction(avg), se, fraction(fin))
			if theory {
				pi := 0.0
				if k < len(fp) {
					pi = fp[k]
				}
				z := "–"
				if se > 0 {
					z = fmt.Sprintf("%+.2f", (avg-pi)/se)
				}
				line += fmt.Sprintf("%s\t%s\t", fraction(pi), z)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
		if theory {
			fmt.Fprintf(w.w, "  fixed point: %s\n", model)
		}
	}
}

// combinedSE is the standard error of the mean over trials of a quantity
// whose per-trial standard errors get returns: √(Σ se²)/trials.
func combinedSE(rs []*result.Dynamic, get func(*result.Dynamic) float64) float64 {
	ss := 0.0
	for _, r := range rs {
		ss += get(r) * get(r)
	}
	return math.Sqrt(ss) / float64(len(rs))
}

// phaseTable prints, per spec of a --phases run, the state at each phase's
// end: the steps, the gap (max load − balls present/n), the max and min
// load, each the mean over trials.
func (w *writer) phaseTable() {
	for i, cks := range w.phaseCk {
		if len(cks) == 0 {
			continue
		}
		s := w.p.specs[i]
		fmt.Fprintf(w.w, "\n%s %s: phases %s (--delete %s), the state at each phase's end (means over %d trial(s))\n",
			s.Process.Name, s.ParamsText(), core.PhasesString(s.Dynamic.Phases), s.Dynamic.DeleteMode(), len(cks))
		tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  phase	steps	gap	max load	min load	")
		end := uint64(0)
		for k, p := range s.Dynamic.Phases {
			end += uint64(max(p, -p))
			var gap, hi, lo float64
			for _, ck := range cks {
				for _, c := range ck {
					if c.Balls == end {
						gap += c.Gap / float64(len(cks))
						hi += c.MaxLoad / float64(len(cks))
						lo += c.MinLoad / float64(len(cks))
					}
				}
			}
			fmt.Fprintf(tw, "  %d (%+d)\t%d\t%s\t%s\t%s\t\n", k+1, p, end, g(gap), g(hi), g(lo))
		}
		tw.Flush()
	}
}
