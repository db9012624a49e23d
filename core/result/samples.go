package result

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Samples is the count of bins a trial sampled, for the processes whose
// steps place several balls or a varying number (twinning, packing,
// kd-choice: their steppers are process.Samplers), so balls per sample is
// balls/samples. The table shows samples per ball.
type Samples uint64

// SamplesKind is the kind of Samples: JSON "samples", CSV samples, a table
// block.
var SamplesKind = register(&Kind{
	Key: "samples", Rank: 30,
	Columns: []string{"samples"},
	Row: func(x Extra) []string {
		if x == nil {
			return []string{""}
		}
		return []string{formatUint(uint64(x.(Samples)))}
	},
	Decode: func(data []byte) (Extra, error) {
		var s Samples
		err := json.Unmarshal(data, &s)
		return s, err
	},
	NewTally: func() Tally { return &samplesTally{} },
	Table:    samplesTable,
})

// Kind is SamplesKind.
func (Samples) Kind() *Kind { return SamplesKind }

// Samples is the bins r's trial sampled, 0 when its process reports none.
func (r *Result) Samples() uint64 {
	s, _ := r.Extra(SamplesKind).(Samples)
	return uint64(s)
}

// samplesTally accumulates one spec's samples per ball.
type samplesTally struct{ perBall Stream }

func (t *samplesTally) Add(r *Result) {
	if r.Extra(SamplesKind) != nil && r.Balls > 0 {
		t.perBall.Add(float64(r.Samples()) / float64(r.Balls))
	}
}

// samplesTable prints, when a process of the run reports its samples, the
// samples per ball of each (and balls per sample).
func samplesTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*samplesTally).perBall.N() > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nbins sampled (mean over trials)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tsamples/ball (± 95% CI)\tballs/sample")
	for _, row := range rows {
		t := row.Tally.(*samplesTally)
		if t.perBall.N() == 0 {
			continue
		}
		m, half := t.perBall.CI()
		fmt.Fprintf(tw, "%s\t%s\t%s ± %.3g\t%s\n", row.Process, row.Params, Figure(m), half, Figure(1/m))
	}
	tw.Flush()
}
