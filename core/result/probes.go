package result

// Probes summarises the load reads (samples) the balls of a trial took, for
// the processes that retry until a bin qualifies (threshold, adaptive).
type Probes struct {
	Mean float64 `json:"mean"` // per ball
	Max  uint64  `json:"max"`  // the most one ball took
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
