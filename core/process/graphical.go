package process

import (
	"fmt"
	"math"
	"strings"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Graphical: each ball draws a uniform edge of --graph (the bins are its
// vertices) and goes to the less loaded endpoint, ties at random
// (Kenthapadi, Panigrahy 2006, "Balanced allocation on graphs"); with
// --strategy one-plus-beta it does so with probability β and otherwise goes
// to a uniform endpoint (Peres, Talwar, Wieder 2015, (1+β) on graphs); with
// --strategy haar it goes to the endpoint the drift of a sampled node of a
// hierarchical decomposition points to (Bansal, Feldheim 2022, "The power of
// two choices in graphical allocation", core/haar).
//
// Direct engine only (the next bin depends on the bins' names):
// kernels.Graphical on a Topology (implicit families, or an edge list of
// fewer than 2^32 edges), kernels.GraphicalWide on an implicit graph of more,
// kernels.Haar on the plan's tables. The graph, and the Haar plan, are built
// once in Check (structures.go) and shared by every trial.

// Graphical is the graphical process.
type Graphical struct {
	GraphSpec  string  // --graph
	Strategy   string  // greedy, one-plus-beta or haar
	Beta       float64 // --strategy one-plus-beta: probability of a greedy step
	Stale      uint64  // --strategy haar: set averages refreshed every Stale balls (0, 1: every ball)
	HaarScale  string  // --strategy haar: congestion or unit demand per tree node (haar.Scale)
	HaarRoute  string  // --strategy haar: each node's flow runs in G[S_i] (set) or in all of G (graph) (haar.Route), or auto
	route      string  // the route the plan uses: HaarRoute, or auto's choice
	GraphClean string  // refuse or drop self-loops and duplicates in files

	graph *graph.Graph
	topo  *kernels.Topology     // fewer than 2^32 edges
	wide  *kernels.WideTopology // implicit, with 2^32 edges or more
	haar  *haar.Plan            // --strategy haar
	coin  kernels.Bernoulli     // --strategy one-plus-beta
}

var graphicalEntry = &Entry{
	Name: "graphical", Order: 110,
	Summary: "a uniform edge of --graph; the less loaded endpoint (ties at random), (1+β) on the edge, or haar: the endpoint a sampled tree node's drift points to",
	Source:  "Kenthapadi, Panigrahy 2006 (Balanced allocation on graphs); Peres, Talwar, Wieder 2015 ((1+β) on graphs); Bansal, Feldheim 2022 (The power of two choices in graphical allocation: haar)",
	New:     func() Process { return &Graphical{} },
}

func init() { Register(graphicalEntry) }

func (*Graphical) Entry() *Entry { return graphicalEntry }

func (p *Graphical) Params() []*Param {
	strategy := func(s string) func(get func(string) string) bool {
		return func(get func(string) string) bool { return get("strategy") == s }
	}
	haarOnly := func(name string) string { return "--" + name + " applies to graphical --strategy haar only" }
	isHaar := func() bool { return p.Strategy == "haar" }
	return []*Param{
		Custom("graph", "graphical: the graph, "+graph.Families, func(v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("--graph: want %s", graph.Families)
			}
			p.GraphSpec = v
			return nil
		}, func() any { return p.GraphSpec }).Need("a graph: " + graph.Families),
		Choice("strategy", "graphical: greedy (the less loaded endpoint), one-plus-beta (greedy with probability --beta, else a random endpoint) or haar (Bansal & Feldheim: compare the average loads of two sibling sets of a hierarchical decomposition, core/haar)",
			&p.Strategy, "greedy", "one-plus-beta", "haar").Def("greedy").Listed(),
		// Only --strategy one-plus-beta takes --beta: Check refuses it
		// missing there and given elsewhere.
		BetaParam(&p.Beta, "graphical --strategy one-plus-beta: probability β of a greedy step, 0 ≤ β ≤ 1").
			OptionalWhen(func() bool { return true }).
			ShownWhen(func() bool { return p.Strategy == "one-plus-beta" }).
			AppliesWhen(strategy("one-plus-beta"), "--beta applies to graphical --strategy one-plus-beta only"),
		Count("stale", "graphical --strategy haar: the set averages a ball reads are refreshed every K allocations (0 or 1: always current)", &p.Stale, 0, "").
			Def("0").Listed().
			ShownWhen(func() bool { return isHaar() && p.Stale > 1 }).
			AppliesWhen(strategy("haar"), haarOnly("stale")),
		Choice("haar-scale", "graphical --strategy haar: each tree node's flow carries the most demand it can alone (congestion, the paper's strong drifts) or one unit (unit)",
			&p.HaarScale, "congestion", "unit").Def("congestion").Listed().
			ShownWhen(isHaar).
			AppliesWhen(strategy("haar"), haarOnly("haar-scale")),
		Choice("haar-route", "graphical --strategy haar: each tree node's flow runs inside its set, G[S_i] (set), or in all of G (graph, as the paper's flow templates may; complete and general graphs), or auto: the one whose plan's weakest drift λ_i/C is the larger",
			&p.HaarRoute, "set", "graph", "auto").Def("set").Listed().
			ShownWhen(func() bool { return isHaar() && p.HaarRoute != "set" }).
			AppliesWhen(strategy("haar"), haarOnly("haar-route")),
		GraphCleanParam(&p.GraphClean),
	}
}

// Check builds (or finds in the cache) the graph, makes its vertices the
// bins, and builds the Haar plan of --strategy haar.
func (p *Graphical) Check(su *Setup) error {
	switch {
	case p.Strategy == "one-plus-beta" && !su.Given["beta"]:
		return fmt.Errorf("graphical --strategy one-plus-beta needs --beta: a probability in [0, 1]")
	case p.Strategy != "one-plus-beta" && su.Given["beta"]:
		return fmt.Errorf("--beta applies to graphical --strategy one-plus-beta only")
	}
	for _, name := range []string{"stale", "haar-scale", "haar-route"} {
		if p.Strategy != "haar" && su.Given[name] {
			return fmt.Errorf("--%s applies to graphical --strategy haar only", name)
		}
	}
	opt := graphOptions(su.Seed, p.GraphClean)
	g, err := cached(structureKey("graph", p.GraphSpec, opt.Seed, 0, p.GraphClean), func() (*graph.Graph, error) {
		return graph.Parse(p.GraphSpec, opt)
	})
	if err != nil {
		return err
	}
	if err := p.useGraph(g, su); err != nil {
		return err
	}
	if p.Strategy == "one-plus-beta" {
		if p.coin, err = kernels.NewBernoulli(p.Beta); err != nil {
			return err
		}
	}
	if p.Strategy == "haar" {
		return p.useHaar(g, su.Seed)
	}
	return nil
}

// useGraph makes g the graph: the bins are its vertices.
func (p *Graphical) useGraph(g *graph.Graph, su *Setup) error {
	if su.Bins != 0 && su.Bins != g.N {
		return fmt.Errorf("--bins %d disagrees with --graph %s, which has %d vertices; leave --bins out", su.Bins, g.Spec, g.N)
	}
	if g.E == 0 {
		return fmt.Errorf("--graph %s has no edges", g.Spec)
	}
	su.Bins = g.N
	p.graph = g
	p.topo, p.wide = nil, nil
	if g.E > math.MaxUint32 {
		p.wide = &kernels.WideTopology{Kind: topoKind(g.Family), N: g.N, E: g.E, Sides: g.Sides, K: uint64(g.K)}
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
	p.topo = &t
	return nil
}

func topoKind(f graph.Family) kernels.TopoKind {
	switch f {
	case graph.Cycle:
		return kernels.TopoCycle
	case graph.Path:
		return kernels.TopoPath
	case graph.Torus:
		return kernels.TopoTorus
	case graph.Hypercube:
		return kernels.TopoHypercube
	case graph.Complete:
		return kernels.TopoComplete
	case graph.Explicit:
		return kernels.TopoEdges
	}
	return 0 // as the map it replaces gave for a family it lacks
}

// useHaar builds (once per graph, seed, scale and route) the Haar-drift plan
// of --strategy haar: the decomposition, flows and alias tables of
// core/haar.
func (p *Graphical) useHaar(g *graph.Graph, seed uint64) error {
	p.route = p.HaarRoute
	if p.HaarRoute == "auto" {
		p.route = "set"
		if p.routeFits(g, haar.RouteGraph) {
			set, err := p.buildHaar(g, seed, "set")
			if err != nil {
				return err
			}
			all, err := p.buildHaar(g, seed, "graph")
			if err != nil {
				return err
			}
			if weakestDrift(all) > weakestDrift(set) {
				p.route = "graph"
			}
		}
	}
	plan, err := p.buildHaar(g, seed, p.route)
	if err != nil {
		return err
	}
	p.haar = plan
	return nil
}

// weakestDrift is the least λ_i/C over the plan's tree nodes: the drift the
// paper needs Ω(d/polylog n) of. --haar-route auto keeps the plan whose
// weakest drift is the larger, a rule on the graph (and seed) alone, so
// results stay reproducible.
func weakestDrift(plan *haar.Plan) float64 {
	w := math.Inf(1)
	for _, l := range plan.Info.Levels {
		w = math.Min(w, l.Min)
	}
	return w
}

// routeFits reports whether route can be built for g: allowed on its
// family, and within the memory available.
func (p *Graphical) routeFits(g *graph.Graph, route haar.Route) bool {
	opt := haar.Options{Route: route}
	if haar.CheckRoute(g, opt) != nil {
		return false
	}
	need, avail := haar.EstimateBytes(g, route), units.AvailableMemory()
	return avail == 0 || need <= avail
}

// buildHaar builds (once per graph, seed, scale and route) the Haar-drift
// plan: the decomposition, flows and alias tables of core/haar.
func (p *Graphical) buildHaar(g *graph.Graph, seed uint64, route string) (*haar.Plan, error) {
	opt := haar.Options{Seed: seed, Scale: haar.ScaleCongestion}
	if p.HaarScale == "unit" {
		opt.Scale = haar.ScaleUnit
	}
	if route == "graph" {
		opt.Route = haar.RouteGraph
	}
	haarErr := func(err error) error {
		// haar's errors name the graph too: say it once.
		return fmt.Errorf("--strategy haar on --graph %s: %s", g.Spec, strings.TrimPrefix(err.Error(), "haar: graph "+g.Spec+": "))
	}
	if err := haar.CheckRoute(g, opt); err != nil {
		return nil, haarErr(err)
	}
	if need, mem := haar.EstimateBytes(g, opt.Route), units.MemoryLimit(); mem.Bytes > 0 && need > mem.Bytes {
		hint := "use a smaller --graph"
		if opt.Route == haar.RouteGraph {
			hint = "use --haar-route set (flows inside each set) or a smaller --graph"
		}
		return nil, fmt.Errorf("--strategy haar on --graph %s: preprocessing needs about %s, more than the %v; %s",
			g.Spec, units.FormatBytes(float64(need)), mem, hint)
	}
	key := structureKey("haar|"+p.HaarScale+"|"+route, g.Spec, seed, 0, p.GraphClean)
	plan, err := cached(key, func() (*haar.Plan, error) { return haar.Build(g, opt) })
	if err != nil {
		return nil, haarErr(err)
	}
	return plan, nil
}

// Route is the route of the plan: set or graph (auto's choice, once
// checked).
func (p *Graphical) Route() string { return p.route }

// Graph is the graph, once checked.
func (p *Graphical) Graph() *graph.Graph { return p.graph }

// Haar is the plan of --strategy haar (nil otherwise).
func (p *Graphical) Haar() *haar.Plan { return p.haar }

// HaarSetting: --haar-scale, --haar-route as given, and the route used.
func (p *Graphical) HaarSetting() HaarSetting {
	return HaarSetting{Scale: p.HaarScale, Asked: p.HaarRoute, Route: p.route}
}

func (p *Graphical) BinsCulprit() (culprit, hint string) {
	return "--graph " + p.GraphSpec, "use a smaller --graph"
}

// Memory: --strategy haar holds its subtree sums, and the balls pending a
// --stale refresh.
func (p *Graphical) Footprint(f *units.Footprint, m Mem) {
	if p.haar == nil {
		return
	}
	bins, hint := p.BinsCulprit()
	size := len(p.haar.Tables.Size)
	f.Add(bins, hint, units.Mul(uint64(size), 8))
	f.Add(fmt.Sprintf("--stale %d", p.Stale), "lower --stale", units.Mul(kernels.HaarPending(size, p.Stale), 4))
}

// graphicalLoop is greedy or (1+β) on a Topology; beta is nil for greedy.
type graphicalLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	t     *kernels.Topology
	beta  *kernels.Bernoulli
	coin  kernels.Bernoulli
	coins kernels.Coins
}

func (l *graphicalLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.Graphical(loads, l.r, c, l.t, l.beta, &l.coins, maxLoad)
}

// graphicalWideLoop is graphicalLoop on an implicit graph of 2^32 edges or
// more.
type graphicalWideLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	t     *kernels.WideTopology
	beta  *kernels.Bernoulli
	coin  kernels.Bernoulli
	coins kernels.Coins
}

func (l *graphicalWideLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.GraphicalWide(loads, l.r, c, l.t, l.beta, &l.coins, maxLoad)
}

// haarLoop is --strategy haar; its state is made from the loads at the
// first ball.
type haarLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	t     *kernels.HaarTables
	stale uint64
	st    *kernels.HaarState
}

func (l *haarLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.st == nil {
		st := kernels.NewHaarState(l.t, loads, l.stale)
		l.st = &st
	}
	return c, kernels.Haar(loads, l.r, c, l.t, l.st, maxLoad)
}

func graphicalDirect[L kernels.Load](p *Graphical, tr *Trial) Stepper[L] {
	onePlusBeta := p.Strategy == "one-plus-beta"
	switch {
	case p.haar != nil:
		return &haarLoop[L]{r: tr.Choices, t: &p.haar.Tables, stale: p.Stale}
	case p.wide != nil:
		l := &graphicalWideLoop[L]{r: tr.Choices, t: p.wide, coin: p.coin}
		if onePlusBeta {
			l.beta = &l.coin
		}
		return l
	}
	l := &graphicalLoop[L]{r: tr.Choices, t: p.topo, coin: p.coin}
	if onePlusBeta {
		l.beta = &l.coin
	}
	return l
}

func (p *Graphical) Direct32(tr *Trial) Stepper[uint32] { return graphicalDirect[uint32](p, tr) }
func (p *Graphical) Direct64(tr *Trial) Stepper[uint64] { return graphicalDirect[uint64](p, tr) }
