package result

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/kernels"
)

// The extra blocks of IDEA's trials (core/engine/vector.go): rounds of d
// draws per ball ("retries", the first round included, as the paper counts
// them) and the estimates' distance from the true average.

// Retries summarises the rounds of d draws the balls of a trial took.
type Retries struct {
	Mean      float64   `json:"mean"`
	Max       uint64    `json:"max"`
	Fallbacks uint64    `json:"fallbacks"` // balls that found no bin at or below its estimate in γ rounds
	Hist      Histogram `json:"hist"`      // [[rounds, balls], ...]
}

// Estimates describes the bins' estimated averages at the end of a trial.
type Estimates struct {
	Spread float64 `json:"spread"`                  // max over bins (and dimensions) of |Â − true average|
	Lag    float64 `json:"lag"`                     // true average − mean estimate (largest over dimensions)
	Held   uint64  `json:"held"`                    // increments the hold rule refused
	Checks uint64  `json:"sample_checks,omitempty"` // --variant sampling: samples taken
}

// RetriesKind is the kind of Retries: JSON "retries", CSV retries_mean,
// retries_max, fallbacks, and the table block of retries and estimates.
var RetriesKind = register(&Kind{
	Key: "retries", Rank: 10,
	Columns: []string{"retries_mean", "retries_max", "fallbacks"},
	Row: func(x Extra) []string {
		if x == nil {
			return []string{"", "", ""}
		}
		r := x.(*Retries)
		return []string{formatFloat(r.Mean), formatUint(r.Max), formatUint(r.Fallbacks)}
	},
	Decode:   decodeInto[Retries],
	NewTally: func() Tally { return &retriesTally{} },
	Table:    retriesTable,
})

// EstimatesKind is the kind of Estimates: JSON "estimates", CSV
// estimate_spread, estimate_lag, estimates_held; the retries' table block
// shows them.
var EstimatesKind = register(&Kind{
	Key: "estimates", Rank: 20,
	Columns: []string{"estimate_spread", "estimate_lag", "estimates_held"},
	Row: func(x Extra) []string {
		if x == nil {
			return []string{"", "", ""}
		}
		e := x.(*Estimates)
		return []string{formatFloat(e.Spread), formatFloat(e.Lag), formatUint(e.Held)}
	},
	Decode: decodeInto[Estimates],
})

// Kind is RetriesKind.
func (*Retries) Kind() *Kind { return RetriesKind }

// Kind is EstimatesKind.
func (*Estimates) Kind() *Kind { return EstimatesKind }

// Retries is r's rounds of d draws, nil when its process reports none.
func (r *Result) Retries() *Retries {
	x, _ := r.Extra(RetriesKind).(*Retries)
	return x
}

// Estimates is r's estimates, nil when its process keeps none.
func (r *Result) Estimates() *Estimates {
	x, _ := r.Extra(EstimatesKind).(*Estimates)
	return x
}

// RetriesOf summarises the kernels' round counts of balls balls.
func RetriesOf(st *kernels.IdeaStats, balls uint64) *Retries {
	r := &Retries{Fallbacks: st.Fallbacks}
	total := 0.0
	for k, c := range st.Rounds {
		if c == 0 {
			continue
		}
		r.Hist = append(r.Hist, Level{Load: float64(k), Count: c})
		r.Max = uint64(k)
		total += float64(k) * float64(c)
	}
	if balls > 0 {
		r.Mean = total / float64(balls)
	}
	return r
}

// retriesTally accumulates the retries and estimates of one spec's trials.
type retriesTally struct {
	started, retries    bool // retries: the first trial reported them
	means, spreads, lag Stream
	top, fell, held     uint64
	balls               uint64
	counts              map[uint64]uint64 // rounds: balls
	estimates           bool
}

func (t *retriesTally) Add(r *Result) {
	rt := r.Retries()
	if !t.started {
		t.started, t.retries, t.counts = true, rt != nil, map[uint64]uint64{}
	}
	if rt == nil {
		return
	}
	t.means.Add(rt.Mean)
	t.top = max(t.top, rt.Max)
	t.fell += rt.Fallbacks
	t.balls += r.Balls
	for _, l := range rt.Hist {
		t.counts[uint64(l.Load)] += l.Count
	}
	if e := r.Estimates(); e != nil {
		t.estimates = true
		t.spreads.Add(e.Spread)
		t.lag.Add(e.Lag)
		t.held += e.Held
	}
}

// retriesTable prints, when any process of the run reports rounds, a table
// of them beside every process of the run: a process without retries
// (d-choice and the others) makes one round of d draws per ball.
func retriesTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*retriesTally).means.N() > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nretries (rounds of d draws per ball, the first included) and estimates Â (mean over trials)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tretries mean (± 95% CI)\tretries max\tfell back\tspread max|Â−avg|\tlag avg−mean Â\theld/ball\trounds: % of balls")
	for _, row := range rows {
		t := row.Tally.(*retriesTally)
		if !t.retries {
			fmt.Fprintf(tw, "%s\t%s\t1 ± 0\t1\t–\t–\t–\t–\t1: 100%%\n", row.Process, row.Params)
			continue
		}
		m, half := t.means.CI()
		spread, lag, heldText := "–", "–", "–"
		if t.estimates {
			sp, _ := t.spreads.CI()
			lg, _ := t.lag.CI()
			spread, lag = Figure(sp), Figure(lg)
			heldText = Figure(float64(t.held) / float64(max(t.balls, 1)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %.3g\t%d\t%s%%\t%s\t%s\t%s\t%s\n", row.Process, row.Params, Figure(m), half, t.top,
			Figure(100*float64(t.fell)/float64(max(t.balls, 1))), spread, lag, heldText, roundsText(t.counts, t.balls, t.top))
	}
	tw.Flush()
}

// roundsText lists the share of balls by rounds: 1, 2, 3, then the rest up
// to γ together, and γ itself.
func roundsText(counts map[uint64]uint64, balls, top uint64) string {
	pct := func(c uint64) string { return Figure(math.Round(1000*100*float64(c)/float64(max(balls, 1))) / 1000) }
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
