package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/balloc/balloc/core/result"
)

// The rounds of rbb (repeated balls-into-bins): the means over rounds of the
// maximum load and of the empty fraction, as the authors' Dim131/RBB prints
// them, with their spread over trials.

// rbbSummary accumulates the rounds of one spec's trials.
type rbbSummary struct {
	meanMax, meanEmpty, empty, rate stream
	rounds                          uint64
	top                             float64
}

// addRBB adds a trial's rounds to the summary.
func (sm *summary) addRBB(r *result.Result) {
	if r.RBB == nil {
		return
	}
	if sm.rbb == nil {
		sm.rbb = &rbbSummary{}
	}
	rs := sm.rbb
	rs.meanMax.add(r.RBB.MeanMaxLoad)
	rs.meanEmpty.add(r.RBB.MeanEmpty)
	rs.empty.add(r.RBB.Empty)
	rs.rate.add(r.RBB.RoundsPerS)
	rs.rounds = r.RBB.Rounds
	rs.top = max(rs.top, r.RBB.MaxMaxLoad)
}

// rbbTable prints, when an rbb process is in the run, its rounds.
func (w *writer) rbbTable() {
	any := false
	for _, sm := range w.sums {
		any = any || sm.rbb != nil
	}
	if !any {
		return
	}
	fmt.Fprintf(w.w, "\nrbb rounds: after each round, averaged over the rounds (mean over trials ± 95%% CI)\n")
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\trounds\tavg max load\tavg empty fraction\tlargest max load\tfinal empty fraction\trounds/s")
	for i, sm := range w.sums {
		rs := sm.rbb
		if rs == nil {
			continue
		}
		s := w.p.specs[i]
		mm, mh := rs.meanMax.ci()
		me, eh := rs.meanEmpty.ci()
		fe, _ := rs.empty.ci()
		rate, _ := rs.rate.ci()
		ci := func(h float64) string {
			if rs.meanMax.n < 2 {
				return "–" // one trial gives no interval
			}
			return fmt.Sprintf("%.2g", h)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f ± %s\t%.5f ± %s\t%s\t%.5f\t%.3g\n", s.Process.Name, s.ParamsText(), rs.rounds,
			mm, ci(mh), me, ci(eh), g(rs.top), fe, rate)
	}
	tw.Flush()
}
