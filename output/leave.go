package output

// The table blocks of runs whose balls leave: the supermarket model's
// occupancy and queue, and the state at the end of each of --phases'
// phases.

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// dynamicTable prints, per spec of a supermarket run, the time-averaged
// fraction of bins with load ≥ i (the mean over trials, ± its standard
// error from the trials' batch means), the final fraction, and with
// --theory the fixed point and the distance to it in standard errors; and
// the mean queue length, Little's sojourn time and the largest load.
func (t *Table) dynamicTable() {
	t.phaseTable()
	for i, rs := range t.dyn {
		if len(rs) == 0 || rs[0].Model != "supermarket" {
			continue
		}
		s := t.specs[i]
		fmt.Fprintf(t.w, "\n%s: supermarket model, λ = %s, %s events (time %s, warmup %s), %d trial(s); time averages after the warmup ± 95%% CI (1.96 standard errors of %d batch means)\n",
			strings.TrimSpace(s.Process.Name+" "+t.params(s)), g(s.Dynamic.ArrivalRate), units.FormatCount(rs[0].Events),
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
		fmt.Fprintf(t.w, "  mean queue length %s ± %.2g, mean sojourn time (Little: queue/λ) %s ± %.2g, largest load seen %s (mean over trials)\n",
			g(q), z975*qse, g(so), z975*qse/s.Dynamic.ArrivalRate, g(mx))
		for _, r := range rs {
			if limit := 2 / math.Sqrt(float64(r.Batches)); r.Batches > 1 && r.BatchLag1 > limit {
				fmt.Fprintf(t.w, "  warning: the batch means are correlated (lag-1 autocorrelation %.2f > 2/√%d): the batches are shorter than the relaxation time and the standard errors understated; lengthen --time\n", r.BatchLag1, r.Batches)
				break
			}
		}
		fp, model := core.SupermarketTheory(s)
		// Redundancy-d's prediction is of its jobs (its own block), not of
		// the copies per server this table counts.
		_, replicated := s.Proc.(process.Replicated)
		theory := t.theory && !replicated
		levels := 0
		for _, r := range rs {
			levels = max(levels, len(r.AtLeast), len(r.FinalAtLeast))
		}
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "  i\ttime-averaged ≥ i\t± 95% CI\tfinal ≥ i\t"
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
			line := fmt.Sprintf("  %d\t%s\t%.2g\t%s\t", k+1, Fraction(avg), z975*se, Fraction(fin))
			if theory {
				pi := 0.0
				if k < len(fp) {
					pi = fp[k]
				}
				z := "–"
				if se > 0 {
					z = fmt.Sprintf("%+.2f", (avg-pi)/se)
				}
				line += fmt.Sprintf("%s\t%s\t", Fraction(pi), z)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
		if theory {
			fmt.Fprintf(t.w, "  fixed point: %s\n", model)
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
func (t *Table) phaseTable() {
	for i, cks := range t.phaseCk {
		if len(cks) == 0 {
			continue
		}
		s := t.specs[i]
		fmt.Fprintf(t.w, "\n%s %s: phases %s (--delete %s), the state at each phase's end (means over %d trial(s))\n",
			s.Process.Name, t.params(s), core.PhasesString(s.Dynamic.Phases), s.Dynamic.DeleteMode(), len(cks))
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', tabwriter.AlignRight)
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
