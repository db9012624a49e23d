package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
)

// The bins sampled by the processes whose steps place several balls
// (twinning, packing, kd-choice: Result.Samples), as samples per ball.

// samplesColumn is the CSV column of Result.Samples: empty for a process
// that does not report them.
func samplesColumn(r *result.Result) string {
	if r.Samples == 0 {
		return ""
	}
	return strconv.FormatUint(r.Samples, 10)
}

// addSamples adds a trial's samples per ball to the summary.
func (sm *summary) addSamples(s *core.Spec, r *result.Result) {
	if s.Process.Samples && r.Balls > 0 {
		sm.perBall.add(float64(r.Samples) / float64(r.Balls))
	}
}

// samplesTable prints, when a process of the run reports its samples, the
// samples per ball of each (and balls per sample).
func (w *writer) samplesTable() {
	any := false
	for _, sm := range w.sums {
		any = any || sm.perBall.n > 0
	}
	if !any {
		return
	}
	fmt.Fprintf(w.w, "\nbins sampled (mean over trials)\n")
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tsamples/ball (± 95% CI)\tballs/sample")
	for i, sm := range w.sums {
		if sm.perBall.n == 0 {
			continue
		}
		s := w.p.specs[i]
		m, half := sm.perBall.ci()
		fmt.Fprintf(tw, "%s\t%s\t%s ± %.3g\t%s\n", s.Process.Name, s.ParamsText(), g(m), half, g(1/m))
	}
	tw.Flush()
}
