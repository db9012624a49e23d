package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/balloc/balloc/core/result"
)

// The probes of the retrying processes (threshold, adaptive): the load reads
// per ball, mean and max (Result.Probes). Shown in the table, and as csv
// columns, only when such a process is in the run; JSON carries the field
// for them alone.

// csvProbesHeader are the columns of probesColumns, after the others.
var csvProbesHeader = []string{"probes_mean", "probes_max"}

// probesColumns are r's probes as csv columns, empty for processes without.
func probesColumns(r *result.Result) []string {
	if r.Probes == nil {
		return []string{"", ""}
	}
	return []string{strconv.FormatFloat(r.Probes.Mean, 'g', -1, 64), strconv.FormatUint(r.Probes.Max, 10)}
}

// probesSummary accumulates one spec's probes.
type probesSummary struct {
	means stream
	most  uint64
}

// addProbes adds a trial's probes to the summary.
func (sm *summary) addProbes(r *result.Result) {
	if r.Probes == nil {
		return
	}
	if sm.probes == nil {
		sm.probes = &probesSummary{}
	}
	sm.probes.means.add(r.Probes.Mean)
	sm.probes.most = max(sm.probes.most, r.Probes.Max)
}

// probesTable prints the probes of the specs that report them.
func (w *writer) probesTable() {
	any := false
	for _, sm := range w.sums {
		any = any || sm.probes != nil
	}
	if !any {
		return
	}
	fmt.Fprintf(w.w, "\nprobes (load reads per ball)\n")
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tprobes mean (± 95% CI)\tprobes max")
	for i, sm := range w.sums {
		if sm.probes == nil {
			continue
		}
		s := w.p.specs[i]
		m, half := sm.probes.means.ci()
		ci := fmt.Sprintf("%.3g", half)
		if sm.probes.means.n < 2 {
			ci = "–"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %s\t%d\n", s.Process.Name, s.ParamsText(), g(m), ci, sm.probes.most)
	}
	tw.Flush()
}
