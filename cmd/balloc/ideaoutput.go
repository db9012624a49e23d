package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/core/result"
)

// The extra statistics of idea runs: rounds of d draws per ball ("retries",
// the first round included, as the paper counts them) and the estimates'
// distance from the true average.

// ideaColumns are the CSV columns of Result.Retries and Result.Estimates,
// empty for processes without them.
func ideaColumns(r *result.Result) []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	cols := make([]string, 6)
	if r.Retries != nil {
		cols[0], cols[1], cols[2] = f(r.Retries.Mean), u(r.Retries.Max), u(r.Retries.Fallbacks)
	}
	if r.Estimates != nil {
		cols[3], cols[4], cols[5] = f(r.Estimates.Spread), f(r.Estimates.Lag), u(r.Estimates.Held)
	}
	return cols
}

// ideaSummary accumulates the retries and estimates of one spec's trials.
type ideaSummary struct {
	retries             bool // the first trial reported retries
	means, spreads, lag stream
	top, fell, held     uint64
	balls               uint64
	counts              map[uint64]uint64 // rounds: balls
	estimates           bool
}

// addIdea adds a trial's retries and estimates to the summary.
func (sm *summary) addIdea(r *result.Result) {
	if sm.idea == nil {
		sm.idea = &ideaSummary{retries: r.Retries != nil, counts: map[uint64]uint64{}}
	}
	is := sm.idea
	if r.Retries == nil {
		return
	}
	is.means.add(r.Retries.Mean)
	is.top = max(is.top, r.Retries.Max)
	is.fell += r.Retries.Fallbacks
	is.balls += r.Balls
	for _, l := range r.Retries.Hist {
		is.counts[uint64(l.Load)] += l.Count
	}
	if r.Estimates != nil {
		is.estimates = true
		is.spreads.add(r.Estimates.Spread)
		is.lag.add(r.Estimates.Lag)
		is.held += r.Estimates.Held
	}
}

// ideaTable prints, when any process of the run reports rounds, a table of
// them beside every process of the run: a process without retries (d-choice
// and the others) makes one round of d draws per ball.
func (w *writer) ideaTable() {
	any := false
	for _, sm := range w.sums {
		any = any || sm.idea.means.n > 0
	}
	if !any {
		return
	}
	fmt.Fprintf(w.w, "\nretries (rounds of d draws per ball, the first included) and estimates Â (mean over trials)\n")
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tretries mean (± 95% CI)\tretries max\tfell back\tspread max|Â−avg|\tlag avg−mean Â\theld/ball\trounds: % of balls")
	for i, sm := range w.sums {
		s := w.p.specs[i]
		is := sm.idea
		if !is.retries {
			fmt.Fprintf(tw, "%s\t%s\t1 ± 0\t1\t–\t–\t–\t–\t1: 100%%\n", s.Process.Name, s.ParamsText())
			continue
		}
		m, half := is.means.ci()
		spread, lag, heldText := "–", "–", "–"
		if is.estimates {
			sp, _ := is.spreads.ci()
			lg, _ := is.lag.ci()
			spread, lag = g(sp), g(lg)
			heldText = g(float64(is.held) / float64(max(is.balls, 1)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %.3g\t%d\t%s%%\t%s\t%s\t%s\t%s\n", s.Process.Name, s.ParamsText(), g(m), half, is.top,
			g(100*float64(is.fell)/float64(max(is.balls, 1))), spread, lag, heldText, roundsText(is.counts, is.balls, is.top))
	}
	tw.Flush()
}

// roundsText lists the share of balls by rounds: 1, 2, 3, then the rest up
// to γ together, and γ itself.
func roundsText(counts map[uint64]uint64, balls, top uint64) string {
	pct := func(c uint64) string { return g(math.Round(1000*100*float64(c)/float64(max(balls, 1))) / 1000) }
	var parts []string
	mid := uint64(0)
	for r := uint64(1); r <= top; r++ {
		switch {
		case r <= 3 || r == top:
			if r > 5 {
				parts = append(parts, fmt.Sprintf("4–%d: %s%%", r-1, pct(mid)))
			} else if r == 5 {
				parts = append(parts, fmt.Sprintf("4: %s%%", pct(mid)))
			}
			mid = 0
			parts = append(parts, fmt.Sprintf("%d: %s%%", r, pct(counts[r])))
		default:
			mid += counts[r]
		}
	}
	return strings.Join(parts, "  ")
}
