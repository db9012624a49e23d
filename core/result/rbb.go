package result

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Rounds summarises a run of repeated balls-into-bins (rbb, Los and
// Sauerwald, STACS 2023): after each of rounds 1 … R (the start not among
// them), the maximum load and the fraction of empty bins, as the authors'
// Dim131/RBB averages them. JSON only (no CSV columns); the table shows the
// means over rounds with their spread over trials.
type Rounds struct {
	Rounds      uint64  `json:"rounds"`
	MeanMaxLoad float64 `json:"mean_max_load"`       // over rounds 1 … R
	MeanEmpty   float64 `json:"mean_empty_fraction"` // over rounds 1 … R
	MaxMaxLoad  float64 `json:"max_max_load"`        // the largest maximum load after any round
	Empty       float64 `json:"empty_fraction"`      // after round R
	Released    uint64  `json:"released"`            // balls re-allocated in all
	RoundsPerS  float64 `json:"rounds_per_s"`
	// Series: with --checkpoints, the state after each checkpoint's round.
	Series []RoundPoint `json:"series,omitempty"`
}

// RoundPoint is the state after one round.
type RoundPoint struct {
	Round   uint64  `json:"round"`
	MaxLoad float64 `json:"max_load"`
	Empty   float64 `json:"empty_fraction"`
}

// RoundsTally adds up the rounds of one trial.
type RoundsTally struct {
	rounds, released uint64
	maxSum, empty    float64 // sums over rounds: maximum load, empty bins
	top              uint64
	series           []RoundPoint
}

// Point records the state after round r for the series.
func (t *RoundsTally) Point(r, maxLoad, empty, n uint64) {
	t.series = append(t.series, RoundPoint{Round: r, MaxLoad: float64(maxLoad), Empty: float64(empty) / float64(n)})
}

// Add records the state after one round: its maximum load, its empty bins
// and the balls it re-allocated.
func (t *RoundsTally) Add(maxLoad, empty, released uint64) {
	t.rounds++
	t.released += released
	t.maxSum += float64(maxLoad)
	t.empty += float64(empty)
	t.top = max(t.top, maxLoad)
}

// Rounds is the summary for n bins, with the empty bins after the last round.
func (t *RoundsTally) Rounds(n, lastEmpty uint64) *Rounds {
	r := &Rounds{Rounds: t.rounds, MaxMaxLoad: float64(t.top), Released: t.released, Empty: float64(lastEmpty) / float64(n), Series: t.series}
	if t.rounds > 0 {
		r.MeanMaxLoad = t.maxSum / float64(t.rounds)
		r.MeanEmpty = t.empty / float64(t.rounds) / float64(n)
	}
	return r
}

// RoundsKind is the kind of Rounds: JSON "rbb", a table block.
var RoundsKind = register(&Kind{
	Key: "rbb", Rank: 40,
	Decode:   decodeInto[Rounds],
	NewTally: func() Tally { return &roundsTally{} },
	Table:    roundsTable,
})

// Kind is RoundsKind.
func (*Rounds) Kind() *Kind { return RoundsKind }

// Rounds is r's rounds, nil when its process runs none.
func (r *Result) Rounds() *Rounds {
	x, _ := r.Extra(RoundsKind).(*Rounds)
	return x
}

// Timed sets the rounds a second from the trial's seconds, and returns the
// balls re-allocated a second, what balls_per_s counts for rbb.
func (x *Rounds) Timed(elapsedS float64) (ballsPerS float64) {
	x.RoundsPerS = float64(x.Rounds) / elapsedS
	return float64(x.Released) / elapsedS
}

// roundsTally accumulates the rounds of one spec's trials.
type roundsTally struct {
	meanMax, meanEmpty, empty, rate Stream
	rounds                          uint64
	top                             float64
}

func (t *roundsTally) Add(r *Result) {
	x := r.Rounds()
	if x == nil {
		return
	}
	t.meanMax.Add(x.MeanMaxLoad)
	t.meanEmpty.Add(x.MeanEmpty)
	t.empty.Add(x.Empty)
	t.rate.Add(x.RoundsPerS)
	t.rounds = x.Rounds
	t.top = max(t.top, x.MaxMaxLoad)
}

// roundsTable prints, when an rbb process is in the run, its rounds.
func roundsTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*roundsTally).meanMax.N() > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nrbb rounds: after each round, averaged over the rounds (mean over trials ± 95%% CI)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\trounds\tavg max load\tavg empty fraction\tlargest max load\tfinal empty fraction\trounds/s")
	for _, row := range rows {
		t := row.Tally.(*roundsTally)
		if t.meanMax.N() == 0 {
			continue
		}
		mm, mh := t.meanMax.CI()
		me, eh := t.meanEmpty.CI()
		fe, _ := t.empty.CI()
		rate, _ := t.rate.CI()
		ci := func(h float64) string {
			if t.meanMax.N() < 2 {
				return "–" // one trial gives no interval
			}
			return fmt.Sprintf("%.2g", h)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f ± %s\t%.5f ± %s\t%s\t%.5f\t%.3g\n", row.Process, row.Params, t.rounds,
			mm, ci(mh), me, ci(eh), Figure(t.top), fe, rate)
	}
	tw.Flush()
}
