package result

import "github.com/balloc/balloc/kernels"

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
