package core

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/balloc/balloc/core/units"
)

// ParseCheckpoints reads --checkpoints (and a sweep's checkpoints key): a
// count K for K evenly spaced snapshots, or log:K for K geometrically spaced
// from n to m (CheckpointTargets).
func ParseCheckpoints(v string) (k uint64, log bool, err error) {
	rest, log := strings.CutPrefix(strings.TrimSpace(v), "log:")
	if k, err = units.ParseCount(rest); err != nil {
		return 0, false, err
	}
	if log && k < 2 {
		return 0, false, fmt.Errorf("log:%d: want log:K with K ≥ 2 (the first snapshot at n balls, the last at m)", k)
	}
	return k, log, nil
}

// FormatCheckpoints writes the setting as ParseCheckpoints reads it.
func FormatCheckpoints(k uint64, log bool) string {
	if log {
		return "log:" + units.FormatCount(k)
	}
	return units.FormatCount(k)
}

// CheckpointTargets returns the step counts at which a run of m steps
// snapshots, ascending and ending at m.
//
// Even (the default): ⌊k·m/K⌋ for k = 1..K, and m itself.
//
// Log (--checkpoints log:K), for a curve against log t: the K points
// a·(m/a)^(i/(K−1)), i = 0..K−1, rounded to the nearest integer, with a =
// min(n, m) (the first at t = n, when every bin holds one ball on average)
// and the last exactly m. Where rounding makes two equal (m/a small against
// K) the duplicate is dropped, so there may be fewer than K.
func (c *Common) CheckpointTargets(m uint64) []uint64 {
	if !c.CheckpointsLog {
		return EvenCheckpoints(m, c.Checkpoints)
	}
	return LogCheckpoints(min(max(c.Bins, 1), m), m, c.Checkpoints)
}

// EvenCheckpoints is CheckpointTargets' even spacing.
func EvenCheckpoints(m, k uint64) []uint64 {
	pts := make([]uint64, 0, k+1)
	for i := uint64(1); i <= k; i++ {
		hi, lo := bits.Mul64(i, m)
		q, _ := bits.Div64(hi, lo, k) // hi < k since i ≤ k: no overflow
		pts = append(pts, q)
	}
	if len(pts) == 0 || pts[len(pts)-1] != m {
		pts = append(pts, m)
	}
	return pts
}

// LogCheckpoints is CheckpointTargets' geometric spacing from a to m (k ≥ 2).
func LogCheckpoints(a, m, k uint64) []uint64 {
	pts := make([]uint64, 0, k)
	if m == 0 {
		return append(pts, 0)
	}
	la, lm := math.Log(float64(a)), math.Log(float64(m))
	for i := uint64(0); i+1 < k; i++ {
		t := uint64(math.Round(math.Exp(la + (lm-la)*float64(i)/float64(k-1))))
		t = min(max(t, 1), m)
		if len(pts) == 0 || t > pts[len(pts)-1] {
			pts = append(pts, t)
		}
	}
	if len(pts) == 0 || pts[len(pts)-1] != m {
		pts = append(pts, m)
	}
	return pts
}
