package result

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/balloc/balloc/core/theory"
)

// Redundancy summarises a Redundancy-d supermarket run (kernels/redundancy.go):
// its jobs, which the Dynamic block's loads count d times (a server's load
// is the copies in its queue, and a job present has d copies). MeanJobs is
// the time-averaged jobs per server after the warmup, the copies' mean
// queue over d; Response the mean response time by Little's law,
// MeanJobs/λ; each with its batch-means standard error. Predicted is the
// paper's large-system mean response time (theory.RedundancyResponse), and
// PredictedJobs λ times it.
type Redundancy struct {
	D             int     `json:"d"`
	Arrived       uint64  `json:"jobs_arrived"`
	Completed     uint64  `json:"jobs_completed"`
	Cancelled     uint64  `json:"copies_cancelled"`
	MeanJobs      float64 `json:"mean_jobs"`
	MeanJobsSE    float64 `json:"mean_jobs_se"`
	Response      float64 `json:"response"`
	ResponseSE    float64 `json:"response_se"`
	Predicted     float64 `json:"predicted_response"`
	PredictedJobs float64 `json:"predicted_jobs"`
}

// RedundancyOf is the block of a run of d copies a job at rate λ, from its
// Dynamic block (copies per server) and its job counts.
func RedundancyOf(dy *Dynamic, d int, arrived, completed, cancelled uint64) *Redundancy {
	x := &Redundancy{D: d, Arrived: arrived, Completed: completed, Cancelled: cancelled}
	l := dy.ArrivalRate
	x.MeanJobs, x.MeanJobsSE = dy.MeanQueue/float64(d), dy.MeanQueueSE/float64(d)
	x.Response, x.ResponseSE = x.MeanJobs/l, x.MeanJobsSE/l
	x.Predicted = theory.RedundancyResponse(l, d)
	x.PredictedJobs = l * x.Predicted
	return x
}

// RedundancyKind is the kind of Redundancy: JSON "redundancy", CSV columns
// for the jobs and the response time, a table block.
var RedundancyKind = register(&Kind{
	Key: "redundancy", Rank: 45,
	Columns: []string{"mean_jobs", "response", "predicted_response"},
	Row: func(x Extra) []string {
		if x == nil {
			return []string{"", "", ""}
		}
		r := x.(*Redundancy)
		return []string{formatFloat(r.MeanJobs), formatFloat(r.Response), formatFloat(r.Predicted)}
	},
	Decode:   decodeInto[Redundancy],
	NewTally: func() Tally { return &redundancyTally{} },
	Table:    redundancyTable,
})

// Kind is RedundancyKind.
func (*Redundancy) Kind() *Kind { return RedundancyKind }

// Redundancy is r's block, nil when its process is not Redundancy-d.
func (r *Result) Redundancy() *Redundancy {
	x, _ := r.Extra(RedundancyKind).(*Redundancy)
	return x
}

// redundancyTally accumulates one spec's trials: the means over trials,
// and their standard errors combined from the trials' batch means.
type redundancyTally struct {
	n                    int
	jobs, resp, jse, rse float64
	pred, predJobs       float64
}

func (t *redundancyTally) Add(r *Result) {
	x := r.Redundancy()
	if x == nil {
		return
	}
	t.n++
	t.jobs += x.MeanJobs
	t.resp += x.Response
	t.jse += x.MeanJobsSE * x.MeanJobsSE
	t.rse += x.ResponseSE * x.ResponseSE
	t.pred, t.predJobs = x.Predicted, x.PredictedJobs
}

// redundancyTable prints each Redundancy-d spec's jobs per server and
// response time beside the paper's prediction.
func redundancyTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*redundancyTally).n > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nredundancy: jobs per server and mean response time (Little: jobs/λ), time averages after the warmup ± 95%% CI (1.96 standard errors of batch means), beside the large-system prediction (Gardner et al. 2017: P(T > t) = (λ + (1 − λ)e^((d−1)t))^(−d/(d−1)))\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "process\tparams\tjobs/server\t± 95% CI\tresponse\t± 95% CI\tpredicted\t(sim − pred)/se\t")
	for _, row := range rows {
		t := row.Tally.(*redundancyTally)
		if t.n == 0 {
			continue
		}
		k := float64(t.n)
		jobs, resp := t.jobs/k, t.resp/k
		jse, rse := math.Sqrt(t.jse)/k, math.Sqrt(t.rse)/k
		z := "–"
		if rse > 0 {
			z = fmt.Sprintf("%+.2f", (resp-t.pred)/rse)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.6g\t%.2g\t%.6g\t%.2g\t%.6g\t%s\t\n", row.Process, row.Params, jobs, 1.96*jse, resp, 1.96*rse, t.pred, z)
	}
	tw.Flush()
}
