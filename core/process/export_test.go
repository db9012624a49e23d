package process

import (
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/kernels"
)

// For graph_twin_test.go (package process_test, which runs trials through
// core): a process made to run on a materialized twin of its structure.

// UseGraph makes g the graph of p.
func (p *Graphical) UseGraph(g *graph.Graph) error { return p.useGraph(g, &Setup{}) }

// TopoKind is the loop p runs.
func (p *Graphical) TopoKind() kernels.TopoKind { return p.topo.Kind }

// UseHypergraph makes h the hypergraph of p.
func (p *Hypergraph) UseHypergraph(h *graph.Hypergraph) { p.use(h) }

// Intervals reports whether p runs the intervals loop.
func (p *Hypergraph) Intervals() bool { return p.topo.Intervals }

// TopoKindOf is the kernels' family of a graph family.
func TopoKindOf(f graph.Family) kernels.TopoKind { return topoKind(f) }
