package core

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// The processes on graphs and hypergraphs: their structures are built once
// per spec (generated ones from the run's seed, graph.StructureStream) and
// shared read-only by every trial.

// structures caches built graphs and hypergraphs by what determines them, so
// that a sweep listing one graph for many parameters builds it once.
var structures = struct {
	sync.Mutex
	m map[string]any
}{m: map[string]any{}}

// structureKey is what determines a structure: its spec, the seed for random
// ones, the cleaning rule, the bins, and a file's size and time.
func structureKey(kind, spec string, seed, bins uint64, clean string) string {
	key := fmt.Sprintf("%s|%s|%d|%d|%s", kind, spec, seed, bins, clean)
	if path, ok := strings.CutPrefix(spec, "file:"); ok {
		if fi, err := os.Stat(path); err == nil {
			key += fmt.Sprintf("|%d|%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return key
}

func cached[T any](key string, build func() (T, error)) (T, error) {
	structures.Lock()
	defer structures.Unlock()
	if v, ok := structures.m[key]; ok {
		return v.(T), nil
	}
	v, err := build()
	if err == nil {
		structures.m[key] = v
	}
	return v, err
}

// buildStructures builds the graph or hypergraph of s, fills in the bins
// they fix (and the balls of --balls-per-bin), and checks the parameters
// that depend on them. set holds the parameters the user gave.
func (s *Spec) buildStructures(set map[string]string) error {
	p := &s.Params
	_, betaSet := set["beta"]
	_, dSet := set["d"]
	opt := graph.Options{Seed: s.Seed, Clean: graph.CleanRefuse}
	if p.GraphClean == "drop" {
		opt.Clean = graph.CleanDrop
	}
	switch s.Process.Kind {
	case KindGraphical:
		switch {
		case p.Strategy == "one-plus-beta" && !betaSet:
			return fmt.Errorf("graphical --strategy one-plus-beta needs --beta: a probability in [0, 1]")
		case p.Strategy != "one-plus-beta" && betaSet:
			return fmt.Errorf("--beta applies to graphical --strategy one-plus-beta only")
		case p.Strategy != "haar" && set["stale"] != "":
			return fmt.Errorf("--stale applies to graphical --strategy haar only")
		case p.Strategy != "haar" && set["haar-scale"] != "":
			return fmt.Errorf("--haar-scale applies to graphical --strategy haar only")
		case p.Strategy != "haar" && set["haar-route"] != "":
			return fmt.Errorf("--haar-route applies to graphical --strategy haar only")
		}
		g, err := cached(structureKey("graph", p.GraphSpec, opt.Seed, 0, p.GraphClean), func() (*graph.Graph, error) {
			return graph.Parse(p.GraphSpec, opt)
		})
		if err != nil {
			return err
		}
		if err := s.useGraph(g); err != nil {
			return err
		}
		if p.Strategy == "haar" {
			if err := s.useHaar(g); err != nil {
				return err
			}
		}
	case KindHypergraph:
		h, err := cached(structureKey("hyper", p.HyperSpec, opt.Seed, s.Bins, p.GraphClean), func() (*graph.Hypergraph, error) {
			return graph.ParseHyper(p.HyperSpec, s.Bins, opt)
		})
		if err != nil {
			return err
		}
		if err := s.useHypergraph(h, dSet); err != nil {
			return err
		}
	case KindKPGroups:
		if s.Bins == 0 {
			return fmt.Errorf("--bins is required for kp-groups")
		}
		k := p.GroupSize
		switch {
		case k > s.Bins:
			return fmt.Errorf("--group-size %d exceeds --bins %d", k, s.Bins)
		case p.Aligned && s.Bins%k != 0:
			return fmt.Errorf("--group-size %d: aligned groups split the bins into n/k groups, so k must divide --bins %d", k, s.Bins)
		case !p.Aligned && 2*k > s.Bins:
			return fmt.Errorf("--group-size %d: two disjoint windows of k bins need --bins ≥ 2k = %d (got %d)", k, 2*k, s.Bins)
		}
	default:
		if s.Bins == 0 {
			return fmt.Errorf("--bins is required for %s", s.Process.Name)
		}
	}
	if s.BallsPerBin > 0 {
		if s.Balls != 0 {
			return fmt.Errorf("--balls-per-bin: give --balls or --balls-per-bin, not both")
		}
		if s.BallsPerBin > math.MaxUint64/s.Bins {
			return fmt.Errorf("--balls-per-bin %d × %d bins overflows", s.BallsPerBin, s.Bins)
		}
		s.Balls = s.BallsPerBin * s.Bins
	}
	return nil
}

// useGraph makes g the graph of a graphical spec: the bins are its vertices.
func (s *Spec) useGraph(g *graph.Graph) error {
	if s.Bins != 0 && s.Bins != g.N {
		return fmt.Errorf("--bins %d disagrees with --graph %s, which has %d vertices; leave --bins out", s.Bins, g.Spec, g.N)
	}
	if g.E == 0 {
		return fmt.Errorf("--graph %s has no edges", g.Spec)
	}
	s.Bins = g.N
	s.graph = g
	s.topo, s.wide = nil, nil
	if g.E > math.MaxUint32 {
		s.wide = &kernels.WideTopology{Kind: topoKind(g.Family), N: g.N, E: g.E, Sides: g.Sides, K: uint64(g.K)}
		return nil
	}
	t := kernels.Topology{Kind: topoKind(g.Family), N: uint32(g.N), E: uint32(g.E), K: uint32(g.K), Edges: g.Edges}
	switch g.Family {
	case graph.Torus:
		sides := make([]uint32, len(g.Sides))
		for i, x := range g.Sides {
			sides[i] = uint32(x)
		}
		t = kernels.NewTorusTopology(sides)
	case graph.Complete:
		t = kernels.NewCompleteTopology(uint32(g.N))
	}
	s.topo = &t
	return nil
}

func topoKind(f graph.Family) kernels.TopoKind {
	return map[graph.Family]kernels.TopoKind{
		graph.Cycle: kernels.TopoCycle, graph.Path: kernels.TopoPath, graph.Torus: kernels.TopoTorus,
		graph.Hypercube: kernels.TopoHypercube, graph.Complete: kernels.TopoComplete, graph.Explicit: kernels.TopoEdges,
	}[f]
}

// useHypergraph makes h the hypergraph of a hypergraph spec.
func (s *Spec) useHypergraph(h *graph.Hypergraph, dSet bool) error {
	p := &s.Params
	if s.Bins != 0 && s.Bins != h.N {
		return fmt.Errorf("--bins %d disagrees with --hyperedges %s, over %d bins", s.Bins, h.Spec, h.N)
	}
	if h.S > math.MaxUint32 {
		return fmt.Errorf("--hyperedges %s: %d hyperedges; at most 2^32 − 1", h.Spec, h.S)
	}
	smallest := h.K
	if smallest == 0 {
		smallest = math.MaxUint64
		for e := range h.S {
			smallest = min(smallest, h.Size(e))
		}
	}
	switch {
	case p.ProbeAll && dSet:
		return fmt.Errorf("--d applies to hypergraph without --probe-all (which probes every bin of the hyperedge)")
	case !p.ProbeAll && uint64(p.D) > smallest:
		return fmt.Errorf("--d %d exceeds the smallest hyperedge of %s (%d bins): a ball probes d distinct bins of its hyperedge", p.D, h.Spec, smallest)
	case !p.ProbeAll && p.D > 64:
		return fmt.Errorf("--d %d: hypergraph probes at most 64 bins per ball (use --probe-all for whole hyperedges)", p.D)
	case p.Refresh > 0 && h.Family != graph.RandomK:
		return fmt.Errorf("--refresh applies to --hyperedges random:s,k, the only family balloc redraws")
	}
	s.Bins = h.N
	s.hyper = h
	s.htopo = &kernels.HyperTopo{N: uint32(h.N), S: uint32(h.S), K: uint32(h.K), Intervals: h.Family == graph.Intervals, Members: h.Members, Offsets: h.Offsets}
	return nil
}

// useHaar builds (once per graph, seed and scale) the Haar-drift plan of a
// graphical --strategy haar spec: the decomposition, flows and alias tables
// of core/haar.
func (s *Spec) useHaar(g *graph.Graph) error {
	opt := haar.Options{Seed: s.Seed, Scale: haar.ScaleCongestion}
	if s.Params.HaarScale == "unit" {
		opt.Scale = haar.ScaleUnit
	}
	if s.Params.HaarRoute == "graph" {
		opt.Route = haar.RouteGraph
	}
	haarErr := func(err error) error {
		// haar's errors name the graph too: say it once.
		return fmt.Errorf("--strategy haar on --graph %s: %s", g.Spec, strings.TrimPrefix(err.Error(), "haar: graph "+g.Spec+": "))
	}
	if err := haar.CheckRoute(g, opt); err != nil {
		return haarErr(err)
	}
	if need, avail := haar.EstimateBytes(g, opt.Route), AvailableMemory(); avail > 0 && need > avail {
		hint := "use a smaller --graph"
		if opt.Route == haar.RouteGraph {
			hint = "use --haar-route set (flows inside each set) or a smaller --graph"
		}
		return fmt.Errorf("--strategy haar on --graph %s: preprocessing needs about %s, more than the %s of memory available; %s",
			g.Spec, FormatBytes(float64(need)), FormatBytes(float64(avail)), hint)
	}
	key := structureKey("haar|"+s.Params.HaarScale+"|"+s.Params.HaarRoute, g.Spec, s.Seed, 0, s.Params.GraphClean)
	plan, err := cached(key, func() (*haar.Plan, error) { return haar.Build(g, opt) })
	if err != nil {
		return haarErr(err)
	}
	s.haar = plan
	return nil
}

// Haar is the plan of a graphical --strategy haar spec (nil otherwise).
func (s *Spec) Haar() *haar.Plan { return s.haar }

// Graph is the graph of a graphical spec (nil otherwise).
func (s *Spec) Graph() *graph.Graph { return s.graph }

// Hypergraph is the hypergraph of a hypergraph spec (nil otherwise).
func (s *Spec) Hypergraph() *graph.Hypergraph { return s.hyper }

// structureFootprint adds what one running trial holds beyond its loads:
// group sums, its own copy of a hypergraph it redraws, Haar's subtree sums
// and the balls pending a --stale refresh.
func (s *Spec) structureFootprint(f *Footprint, loadBytes uint64) {
	bins, binsHint := s.binsCulprit()
	switch s.Process.Kind {
	case KindKPGroups:
		if s.Params.Aligned && s.Params.GroupRule == "sum" {
			f.Add(bins, binsHint, units.Mul(s.Bins/s.Params.GroupSize, loadBytes))
		}
	case KindHypergraph:
		if s.Params.Refresh > 0 {
			f.Add("--hyperedges "+s.Params.HyperSpec, "use fewer or smaller --hyperedges", units.Mul(uint64(len(s.hyper.Members)), 4))
		}
	case KindGraphical:
		if s.haar != nil {
			size := len(s.haar.Tables.Size)
			f.Add(bins, binsHint, units.Mul(uint64(size), 8))
			f.Add(fmt.Sprintf("--stale %d", s.Params.Stale), "lower --stale", units.Mul(kernels.HaarPending(size, s.Params.Stale), 4))
		}
	}
}

// graphRunner holds one trial's state for the processes on structures.
type graphRunner struct {
	coins   kernels.Coins
	beta    *kernels.Bernoulli
	sums    any // kp-groups: []L group totals
	htopo   *kernels.HyperTopo
	haar    *kernels.HaarState // graphical --strategy haar, made at the first ball
	restock kernels.PCG32      // hypergraph --refresh: the trial's structure stream
}

func newGraphRunner[L kernels.Load](s *Spec, trial uint64) *graphRunner {
	g := &graphRunner{htopo: s.htopo}
	p := &s.Params
	switch s.Process.Kind {
	case KindGraphical:
		if p.Strategy == "one-plus-beta" {
			b, err := kernels.NewBernoulli(p.Beta)
			if err != nil {
				panic(err) // NewSpec checked 0 ≤ β ≤ 1
			}
			g.beta = &b
		}
	case KindKPGroups:
		if p.Aligned && p.GroupRule == "sum" {
			g.sums = make([]L, s.Bins/p.GroupSize)
		}
	case KindHypergraph:
		if p.Refresh > 0 {
			h := *s.htopo
			h.Members = make([]uint32, len(s.htopo.Members))
			g.htopo = &h
			g.restock = kernels.TrialStream(s.Seed, trial, kernels.LaneStructure)
		}
	}
	return g
}

// run throws c balls of a process on a structure, from ball t on; it
// returns how many it threw (fewer than c at a --refresh boundary).
func runGraph[L kernels.Load](s *Spec, g *graphRunner, loads []L, rng *kernels.PCG32, t, c uint64, maxLoad L) (uint64, L) {
	p := &s.Params
	switch s.Process.Kind {
	case KindGraphical:
		if s.haar != nil {
			if g.haar == nil {
				st := kernels.NewHaarState(&s.haar.Tables, loads, p.Stale)
				g.haar = &st
			}
			return c, kernels.Haar(loads, rng, c, &s.haar.Tables, g.haar, maxLoad)
		}
		if s.wide != nil {
			return c, kernels.GraphicalWide(loads, rng, c, s.wide, g.beta, &g.coins, maxLoad)
		}
		return c, kernels.Graphical(loads, rng, c, s.topo, g.beta, &g.coins, maxLoad)
	case KindKPGroups:
		k, byMin := uint32(p.GroupSize), p.GroupRule == "min"
		if !p.Aligned {
			return c, kernels.KPWindows(loads, rng, c, k, byMin, &g.coins, maxLoad)
		}
		sums, _ := g.sums.([]L)
		return c, kernels.KPGroups(loads, sums, rng, c, k, byMin, &g.coins, maxLoad)
	case KindHypergraph:
		if r := p.Refresh; r > 0 {
			if t%r == 0 {
				// Ball t+1 starts a new round: a fresh hypergraph from the
				// trial's own structure stream.
				kernels.RandomSubsets(g.htopo.Members, g.htopo.N, int(g.htopo.K), &g.restock)
			}
			c = min(c, r-t%r)
		}
		return c, kernels.Hyper(loads, rng, c, g.htopo, p.D, p.ProbeAll, maxLoad)
	}
	panic("core: no structure loop for " + s.Process.Name)
}
