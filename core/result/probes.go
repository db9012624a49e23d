package result

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Probes summarises the load reads (samples) the balls of a trial took, for
// the processes that retry until a bin qualifies (threshold, adaptive,
// bounded-hashing's walk: their steppers are process.Probers). Shown in the table, and as CSV columns,
// only when such a process is in the run.
type Probes struct {
	Mean float64 `json:"mean"` // per ball
	Max  uint64  `json:"max"`  // the most one ball took
}

// ProbesKind is the kind of Probes: JSON "probes", CSV probes_mean and
// probes_max, a table block.
var ProbesKind = register(&Kind{
	Key: "probes", Rank: 50,
	Columns: []string{"probes_mean", "probes_max"},
	Row: func(x Extra) []string {
		if x == nil {
			return []string{"", ""}
		}
		p := x.(*Probes)
		return []string{formatFloat(p.Mean), formatUint(p.Max)}
	},
	Decode:   decodeInto[Probes],
	NewTally: func() Tally { return &probesTally{} },
	Table:    probesTable,
})

// Kind is ProbesKind.
func (*Probes) Kind() *Kind { return ProbesKind }

// Probes is r's probes, nil when its process reports none.
func (r *Result) Probes() *Probes {
	p, _ := r.Extra(ProbesKind).(*Probes)
	return p
}

// ProbesOf is the summary of total probes over balls balls, most of them
// for one ball.
func ProbesOf(total, most, balls uint64) *Probes {
	p := &Probes{Max: most}
	if balls > 0 {
		p.Mean = float64(total) / float64(balls)
	}
	return p
}

// probesTally accumulates one spec's probes.
type probesTally struct {
	means Stream
	most  uint64
}

func (t *probesTally) Add(r *Result) {
	if p := r.Probes(); p != nil {
		t.means.Add(p.Mean)
		t.most = max(t.most, p.Max)
	}
}

// probesTable prints the probes of the specs that report them.
func probesTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*probesTally).means.N() > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nprobes (load reads per ball; per arrival when balls leave)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tprobes mean (± 95% CI)\tprobes max")
	for _, row := range rows {
		t := row.Tally.(*probesTally)
		if t.means.N() == 0 {
			continue
		}
		m, half := t.means.CI()
		ci := fmt.Sprintf("%.3g", half)
		if t.means.N() < 2 {
			ci = "–"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %s\t%d\n", row.Process, row.Params, Figure(m), ci, t.most)
	}
	tw.Flush()
}
