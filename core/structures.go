package core

import (
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/process"
)

// Graph is the graph of a graphical spec (nil otherwise).
func (s *Spec) Graph() *graph.Graph {
	if p, ok := s.Proc.(process.OnGraph); ok {
		return p.Graph()
	}
	return nil
}

// Haar is the plan of a graphical --strategy haar spec (nil otherwise).
func (s *Spec) Haar() *haar.Plan {
	if p, ok := s.Proc.(process.HaarPlanned); ok {
		return p.Haar()
	}
	return nil
}

// Hypergraph is the hypergraph of a hypergraph spec (nil otherwise).
func (s *Spec) Hypergraph() *graph.Hypergraph {
	if p, ok := s.Proc.(process.OnHypergraph); ok {
		return p.Structure()
	}
	return nil
}

// HaarSetting is how a spec's Haar-drift plan was asked for and built (the
// zero value when it has none).
func (s *Spec) HaarSetting() process.HaarSetting {
	if p, ok := s.Proc.(process.HaarPlanned); ok && p.Haar() != nil {
		return p.HaarSetting()
	}
	return process.HaarSetting{}
}
