package result

// Rounds summarises a run of repeated balls-into-bins (rbb, Los and
// Sauerwald, STACS 2023): after each of rounds 1 … R (the start not among
// them), the maximum load and the fraction of empty bins, as the authors'
// Dim131/RBB averages them.
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
