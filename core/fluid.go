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
	return f.Fluid(s.Bins, s.Balls)
}
