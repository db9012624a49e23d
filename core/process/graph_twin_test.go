package process_test

import (
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// Every implicit family gives, from the same seed, exactly the trial of its
// materialized twin (an edge array numbered by Graph.Edge): the loops
// compute edges from their index as Graph.Edge defines them.
func TestImplicitGraphsMatchTheirTwins(t *testing.T) {
	for _, c := range []struct {
		spec   string
		params map[string]string
	}{
		{"cycle:1000", nil},
		{"path:777", nil},
		{"torus:30,40", nil},
		{"torus:7,5,3", nil},
		{"hypercube:10", nil},
		{"complete:101", nil},
		{"complete:64", nil},
		{"torus:30,40", map[string]string{"strategy": "one-plus-beta", "beta": "0.5"}},
		{"hypercube:8", map[string]string{"strategy": "one-plus-beta", "beta": "0.25"}},
	} {
		params := map[string]string{"graph": c.spec}
		for k, v := range c.params {
			params[k] = v
		}
		s, err := core.NewSpec("graphical", params, core.Common{Balls: 200_000, Trials: 1, Seed: 9, Alpha: 1, KeepLoads: true, Checkpoints: 3})
		if err != nil {
			t.Fatal(err)
		}
		twin, tp := *s, *s.Proc.(*process.Graphical)
		twin.Proc = &tp
		g, err := s.Graph().Materialize()
		if err != nil {
			t.Fatal(err)
		}
		if err := tp.UseGraph(g); err != nil {
			t.Fatal(err)
		}
		if tp.TopoKind() != kernels.TopoEdges || s.Proc.(*process.Graphical).TopoKind() == kernels.TopoEdges {
			t.Fatalf("%s: the twin is not the edge-array loop", c.spec)
		}
		for trial := range uint64(3) {
			a, b := engine.RunTrial(s, trial, nil), engine.RunTrial(&twin, trial, nil)
			if !slices.Equal(a.Loads, b.Loads) {
				t.Errorf("%s %v trial %d: the implicit graph and its materialized twin differ", c.spec, c.params, trial)
			}
		}
	}
}

func TestIntervalsMatchTheirTwin(t *testing.T) {
	for _, params := range []map[string]string{
		{"hyperedges": "intervals:7"},
		{"hyperedges": "intervals:7", "d": "4"},
		{"hyperedges": "intervals:7", "probe-all": "true"},
	} {
		s, err := core.NewSpec("hypergraph", params, core.Common{Bins: 500, Balls: 100_000, Trials: 1, Seed: 4, Alpha: 1, KeepLoads: true})
		if err != nil {
			t.Fatal(err)
		}
		twin, tp := *s, *s.Proc.(*process.Hypergraph)
		twin.Proc = &tp
		tp.UseHypergraph(s.Hypergraph().Materialize())
		if tp.Intervals() || !s.Proc.(*process.Hypergraph).Intervals() {
			t.Fatal("the twin is not the member-list loop")
		}
		a, b := engine.RunTrial(s, 1, nil), engine.RunTrial(&twin, 1, nil)
		if !slices.Equal(a.Loads, b.Loads) {
			t.Errorf("%v: intervals and their materialized twin differ", params)
		}
	}
}

// Graphs of 2^32 edges or more run GraphicalWide, whose edge numbering must
// be Graph.Edge's too.
func TestWideTopologyEdges(t *testing.T) {
	for _, spec := range []string{"torus:65536,65535", "hypercube:31", "complete:100000", "complete:99999"} {
		g, err := graph.Parse(spec, graph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if g.E <= 1<<32-1 {
			t.Fatalf("%s: %d edges is not wide", spec, g.E)
		}
		w := kernels.WideTopology{Kind: process.TopoKindOf(g.Family), N: g.N, E: g.E, Sides: g.Sides, K: uint64(g.K)}
		r := kernels.NewPCG32(1, 2)
		for i := range 100_000 {
			e := r.Bounded64(g.E)
			if i < 3 {
				e = []uint64{0, g.E - 1, g.E / 2}[i]
			}
			u, v := g.Edge(e)
			x, y := w.Edge(e)
			if u != x || v != y {
				t.Fatalf("%s edge %d: Graph.Edge (%d, %d), WideTopology.Edge (%d, %d)", spec, e, u, v, x, y)
			}
		}
	}
}
