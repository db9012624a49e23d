package result

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Leaky summarises a run of leaky bins (core/process/leaky.go): after each
// round (its arrivals placed and every non-empty bin's ball deleted), the
// maximum load, the fraction of empty bins and the balls present per bin,
// averaged over the rounds after the burn-in (the first half of the
// rounds, as rbb's averages are over its rounds); and the balls that
// arrived and leaked per bin and round over the same rounds. In the
// stationary regime the expected leak equals the expected arrivals, λ per
// bin (the paper's time-invariant system load), which Leaked shows.
type Leaky struct {
	Rounds      uint64  `json:"rounds"`
	Burn        uint64  `json:"burn_in_rounds"`
	MeanMaxLoad float64 `json:"mean_max_load"`
	MeanEmpty   float64 `json:"mean_empty_fraction"`
	MeanBalls   float64 `json:"mean_balls_per_bin"`
	Arrived     float64 `json:"arrivals_per_bin"` // per round
	Leaked      float64 `json:"leaked_per_bin"`   // per round
	MaxMaxLoad  float64 `json:"max_max_load"`     // after any round past the burn-in
	Present     uint64  `json:"balls_present"`    // after the last round
	Thrown      uint64  `json:"balls_arrived"`    // in all the rounds, the burn-in's too
}

// Timed returns the balls placed a second, what balls_per_s counts for
// leaky bins (its --balls are the start's, not the balls thrown).
func (x *Leaky) Timed(elapsedS float64) (ballsPerS float64) {
	return float64(x.Thrown) / elapsedS
}

// LeakyTally adds up the rounds of one trial past the burn-in.
type LeakyTally struct {
	rounds                        uint64
	maxSum, empty, balls, in, out float64
	top                           uint64
}

// Add records one round: the maximum load and the empty bins after it, the
// balls present then, and the round's arrivals and deletions.
func (t *LeakyTally) Add(maxLoad, empty, present, arrived, leaked uint64) {
	t.rounds++
	t.maxSum += float64(maxLoad)
	t.empty += float64(empty)
	t.balls += float64(present)
	t.in += float64(arrived)
	t.out += float64(leaked)
	t.top = max(t.top, maxLoad)
}

// Leaky is the summary for n bins over rounds rounds with burn rounds of
// burn-in, present balls at the end.
func (t *LeakyTally) Leaky(n, rounds, burn, present, thrown uint64) *Leaky {
	x := &Leaky{Rounds: rounds, Burn: burn, MaxMaxLoad: float64(t.top), Present: present, Thrown: thrown}
	if r := float64(t.rounds); r > 0 {
		k := r * float64(n)
		x.MeanMaxLoad, x.MeanEmpty, x.MeanBalls = t.maxSum/r, t.empty/k, t.balls/k
		x.Arrived, x.Leaked = t.in/k, t.out/k
	}
	return x
}

// LeakyKind is the kind of Leaky: JSON "leaky", a table block.
var LeakyKind = register(&Kind{
	Key: "leaky", Rank: 41,
	Decode:   decodeInto[Leaky],
	NewTally: func() Tally { return &leakyTally{} },
	Table:    leakyTable,
})

// Kind is LeakyKind.
func (*Leaky) Kind() *Kind { return LeakyKind }

// Leaky is r's block, nil when its process is not leaky bins.
func (r *Result) Leaky() *Leaky {
	x, _ := r.Extra(LeakyKind).(*Leaky)
	return x
}

type leakyTally struct {
	max, empty, balls, in, out Stream
	rounds, burn               uint64
	top                        float64
}

func (t *leakyTally) Add(r *Result) {
	x := r.Leaky()
	if x == nil {
		return
	}
	t.max.Add(x.MeanMaxLoad)
	t.empty.Add(x.MeanEmpty)
	t.balls.Add(x.MeanBalls)
	t.in.Add(x.Arrived)
	t.out.Add(x.Leaked)
	t.rounds, t.burn = x.Rounds, x.Burn
	t.top = max(t.top, x.MaxMaxLoad)
}

// leakyTable prints, when leaky bins are in the run, their rounds.
func leakyTable(w io.Writer, rows []TallyRow) {
	shown := false
	for _, row := range rows {
		shown = shown || row.Tally.(*leakyTally).max.N() > 0
	}
	if !shown {
		return
	}
	fmt.Fprintf(w, "\nleaky bins: after each round past the burn-in (the first half of the rounds), averaged over the rounds (mean over trials ± 95%% CI); arrivals and leaks per bin and round\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\trounds\tavg max load\tavg empty fraction\tballs/bin\tarrived/bin\tleaked/bin\tlargest max load")
	for _, row := range rows {
		t := row.Tally.(*leakyTally)
		if t.max.N() == 0 {
			continue
		}
		ci := func(s *Stream, prec int) string {
			m, h := s.CI()
			if s.N() < 2 {
				return fmt.Sprintf("%.*f ± –", prec, m)
			}
			return fmt.Sprintf("%.*f ± %.2g", prec, m, h)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", row.Process, row.Params, t.rounds,
			ci(&t.max, 3), ci(&t.empty, 5), ci(&t.balls, 4), ci(&t.in, 5), ci(&t.out, 5), Figure(t.top))
	}
	tw.Flush()
}
