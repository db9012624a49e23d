package result

import (
	"encoding/json"
	"math"
	"strconv"
)

// Result is one trial's outcome, with the JSON fields of the README's Output
// table (Encode writes it).
type Result struct {
	Process     string         `json:"process"`
	Params      map[string]any `json:"params"`
	Bins        uint64         `json:"bins"`
	Balls       uint64         `json:"balls"`
	Trial       uint64         `json:"trial"`
	Seed        uint64         `json:"seed"`
	Engine      string         `json:"engine"`
	Gap         float64        `json:"gap"`
	MaxLoad     float64        `json:"max_load"`
	MinLoad     float64        `json:"min_load"`
	Underload   float64        `json:"underload"`
	Average     float64        `json:"average"`
	Quadratic   Potential      `json:"quadratic_potential"`
	Alpha       float64        `json:"alpha"`
	ExpPot      Float          `json:"exp_potential"`
	LogExpPot   float64        `json:"log_exp_potential"`
	Histogram   Histogram      `json:"histogram,omitempty"`
	Checkpoints []Checkpoint   `json:"checkpoints,omitempty"`
	Loads       []float64      `json:"loads,omitempty"` // with core.Common.KeepLoads
	MaxGap      float64        `json:"max_gap"`
	ElapsedS    float64        `json:"elapsed_s"`
	BallsPerS   float64        `json:"balls_per_s"`
	Theory      *Theory        `json:"theory,omitempty"`
	SpecHash    string         `json:"spec_hash,omitempty"` // sweeps: the grid point (core.Spec.Hash)
	// Extras are the blocks some processes add (extra.go): written and
	// read by Encode and Decode.
	Extras Extras `json:"extras,omitempty"`

	// InitialBalls is W0, the balls of --initial beside the Balls thrown.
	InitialBalls uint64 `json:"initial_balls,omitempty"`
	// Dynamic is the balls-that-leave summary (dynamic.go).
	Dynamic *Dynamic `json:"dynamic,omitempty"`
}

// Checkpoint is the state after Balls balls.
type Checkpoint struct {
	Balls     uint64    `json:"balls"`
	Gap       float64   `json:"gap"`
	MaxLoad   float64   `json:"max_load"`
	MinLoad   float64   `json:"min_load"`
	Underload float64   `json:"underload"`
	Quadratic Potential `json:"quadratic_potential"`
	LogExpPot float64   `json:"log_exp_potential"`
	// MaxGap is the running max_gap: the largest gap at this checkpoint
	// or any before it (and, for processes with batches, at any batch end
	// so far), so the last checkpoint's is the trial's max_gap when it is
	// the end. Result.Fill sets it; an engine may set it first to the
	// largest gap it saw between checkpoints (batch ends).
	MaxGap float64 `json:"max_gap"`

	Round uint64 `json:"round,omitempty"` // rbb: the state after this round
}

// Histogram marshals as [[load, count], ...].
type Histogram []Level

// MarshalJSON writes the sparse histogram as pairs.
func (h Histogram) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, l := range h {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendFloat(b, l.Load, 'g', -1, 64)
		b = append(b, ',')
		b = strconv.AppendUint(b, l.Count, 10)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads pairs back.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var pairs [][2]float64
	if err := json.Unmarshal(data, &pairs); err != nil {
		return err
	}
	*h = make(Histogram, len(pairs))
	for i, p := range pairs {
		(*h)[i] = Level{Load: p[0], Count: uint64(p[1])}
	}
	return nil
}

// Float is a float64 that marshals ±Inf and NaN as null, which JSON lacks
// (an exponential potential can overflow).
type Float float64

// MarshalJSON writes null for non-finite values.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as +Inf (the only way a potential overflows).
func (f *Float) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*f = Float(math.Inf(1))
		return nil
	}
	x, err := strconv.ParseFloat(string(data), 64)
	*f = Float(x)
	return err
}

// Checkpoint is the snapshot as a Result records it.
func (s Snapshot) Checkpoint() Checkpoint {
	return Checkpoint{
		Balls: s.Balls, Gap: s.Gap, MaxLoad: s.MaxLoad, MinLoad: s.MinLoad,
		Underload: s.Underload, Quadratic: Potential(s.Quadratic), LogExpPot: s.LogExp,
	}
}

// Fill copies the final snapshot into r.
func (r *Result) Fill(s Snapshot, alpha float64) {
	r.Gap, r.MaxLoad, r.MinLoad, r.Underload = s.Gap, s.MaxLoad, s.MinLoad, s.Underload
	r.Average, r.Quadratic = s.Average, Potential(s.Quadratic)
	r.Alpha, r.LogExpPot, r.ExpPot = alpha, s.LogExp, Float(math.Exp(s.LogExp))
	r.Histogram = s.Histogram
	r.MaxGap = s.Gap
	run := math.Inf(-1)
	for i := range r.Checkpoints {
		c := &r.Checkpoints[i]
		run = max(run, c.Gap, c.MaxGap)
		c.MaxGap = run
		r.MaxGap = max(r.MaxGap, c.Gap)
	}
}

// BatchEndsAt records, in the checkpoint just taken, the largest gap at a
// batch end so far (Checkpoint.MaxGap; Fill makes it running).
func (r *Result) BatchEndsAt(gap float64) {
	if n := len(r.Checkpoints); n > 0 {
		r.Checkpoints[n-1].MaxGap = max(r.Checkpoints[n-1].MaxGap, gap)
	}
}
