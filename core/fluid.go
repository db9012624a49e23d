package core

import (
	"fmt"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/theory"
)

// FluidOf returns the fluid-limit profile at t = balls/bins for s, or an
// error when balloc has none for its process and weights.
func FluidOf(s *Spec) (theory.Profile, error) {
	f, ok := s.Proc.(process.Fluid)
	if !ok || s.Weights.Kind != process.WeightsUnit {
		return theory.Profile{}, fmt.Errorf("no fluid limit for %s %s", s.Process.Name, s.ParamsText())
	}
	if !s.Initial.IsZero() {
		return theory.Profile{}, fmt.Errorf("no fluid limit for %s from --initial %s (balloc's fluid limits start from empty bins)", s.Process.Name, s.Initial.String())
	}
	return f.Fluid(s.Bins, s.Balls)
}
