package haar

import (
	"fmt"
	"math/bits"
	"time"
	"unsafe"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Scale says how much demand each node's flow carries before the common
// normalisation by C.
type Scale int

const (
	// ScaleCongestion (the default) scales each node's flow f_i by
	// λ_i = 1/max_e |f_i(e)|, the largest multiple of it that is feasible
	// alone (congestion 1). The paper asks that the total drift between
	// two siblings be Ω(d/polylog n) (overview, "sufficiently strong"
	// drifts) and sizes a node's demand by the capacity of its cut in G
	// (the Räcke-tree paragraph); λ_i is that capacity for the families
	// with closed-form flows (cycle 2, torus box 2·cross-section,
	// hypercube and complete graph the cut's edge count) and the natural
	// stand-in for electrical flows elsewhere.
	ScaleCongestion Scale = iota
	// ScaleUnit gives every node one unit of demand.
	// On dense graphs this is far below Ω(d/polylog n): on complete:n the
	// root's drift is 1/C with C = 1, so the strategy is nearly one-choice.
	ScaleUnit
)

// Route says where a node's flow may run.
type Route int

const (
	// RouteSet (the default) routes f_i inside G[S_i]:
	// each edge's law holds only nodes whose sets hold the edge, O(log n)
	// of them. On dense graphs this starves the small sets: on complete:n
	// two sibling vertices share one edge of G[S_i], so their difference
	// settles at (n−1)/2 (Info.DifferenceScale) and the gap grows like n.
	RouteSet Route = iota
	// RouteGraph routes f_i in all of G, as the paper's Räcke flow templates
	// may ("the corresponding flow in G"): the electrical flow of node i's
	// demand in G. On complete:n it has a closed form (potential b/n, so
	// every edge with an endpoint in S_i carries flow, and an edge's law
	// holds the ancestors of both endpoints, 2·depth nodes); on a general
	// graph it is found by conjugate gradients on all of G, once per node,
	// and every edge may carry every node's flow (n − 1 nodes per edge
	// law: memory about 64·|E|·n bytes, EstimateBytes). The closed-form families (cycle,
	// path, torus, hypercube) have closed forms inside G[S_i] only and are
	// refused.
	RouteGraph
)

// Options are Build's settings besides the graph.
type Options struct {
	// Seed chooses the start vectors of the Lanczos iterations that find
	// spectral bisections.
	Seed uint64
	// Scale is the demand of each node's flow (see Scale).
	Scale Scale
	// Route is where each node's flow runs (see Route).
	Route Route
	// Spectral decomposes and routes every graph as a general one (spectral
	// bisection, electrical flows by conjugate gradients), even a family
	// with a closed form. For tests and comparisons.
	Spectral bool
	// KeepFlows keeps every node's flow in Plan.Flows (memory: about 12
	// bytes per entry, m·depth entries at most).
	KeepFlows bool
}

func (o Options) validate() error {
	if o.Scale != ScaleCongestion && o.Scale != ScaleUnit {
		return fmt.Errorf("haar: Options.Scale = %d: want ScaleCongestion (0) or ScaleUnit (1)", o.Scale)
	}
	if o.Route != RouteSet && o.Route != RouteGraph {
		return fmt.Errorf("haar: Options.Route = %d: want RouteSet (0) or RouteGraph (1)", o.Route)
	}
	return nil
}

// Split says how a node's set was bisected.
type Split uint8

const (
	SplitInterval Split = iota + 1 // cycle, path, complete graph: halves of an interval
	SplitCube                      // hypercube: one coordinate per level (the highest free one)
	SplitBox                       // torus: the box's longest side halved
	SplitSpectral                  // Fiedler vector of G[S], cut at the median
	SplitBFS                       // BFS order of G[S] (disconnected, or the eigensolver failed)
)

// Node is an internal node i of T: S_i = Order[Lo[Heap]:Hi[Heap]], its left
// child S_l the first ⌈|S_i|/2⌉-or-so positions (up to Lo[2·Heap+1]).
type Node struct {
	Heap  uint32
	Depth int
	Split Split
	// Route is the heap index of the set whose induced subgraph carries
	// f_i: Heap itself unless G[S_i] is disconnected, when it is the
	// nearest ancestor A with S_i inside one component of G[A].
	Route uint32
	// Lambda is λ_i, the demand f_i carries (see Scale): the node's drift
	// moves λ_i/C units of mass toward its lighter child.
	Lambda float64
	// CGIterations is the conjugate-gradient iterations its electrical
	// flow took (0 for closed-form flows).
	CGIterations int
}

// Flows holds every node's flow for one unit of demand (before λ_i and C):
// node k of Plan.Nodes has entries Off[k]:Off[k+1], each an edge and the
// flow along it from Graph.Edge's first endpoint x to its second y. Edges
// absent from a node's entries carry nothing.
type Flows struct {
	Off   []int
	Edge  []uint32
	Value []float64
}

// Plan is a preprocessed graph for kernels.Haar.
type Plan struct {
	N     uint64
	Order []uint32 // position → vertex: S_h = Order[Lo[h]:Hi[h]]
	Pos   []uint32 // vertex → position
	// Lo and Hi bound every heap index's set in positions (Lo = Hi = 0 for
	// indices that are no set).
	Lo, Hi []uint32
	Nodes  []Node // internal nodes, in preorder
	C      float64
	Tables kernels.HaarTables
	Flows  *Flows // nil unless Options.KeepFlows
	Info   Info
}

// Level is the drift strength of the nodes at one depth of T: λ_i/C, the
// total drift (the paper's d_t summed over the lighter child, in edge
// biases) that node i applies toward its lighter child.
type Level struct {
	Depth          int
	Nodes          int
	Min, Mean, Max float64
}

// DifferenceScale is the mean of |L̄(S_l) − L̄(S_r)| at stationarity for a
// node whose drift is w = λ_i/C, on a graph of n vertices and e edges:
// e/(n·w), that is d/(2w) on a d-regular graph. Derivation: a ball's edge
// is uniform, so node i raises the chance that the ball lands in the
// lighter child by w/(2e) in all (its flow carries λ_i units, each edge
// biased by λ_i|f_i(e)|/C), and D = L̄(S_l) − L̄(S_r) moves toward 0 by
// μ = (w/2e)(1/k_l + 1/k_r) per ball, k_l and k_r the children's sizes;
// the drifts of every other node leave D's mean unchanged (they are
// orthogonal, TestDriftsAreOrthogonal), and D's variance per ball is
// σ² ≈ (1/k_l + 1/k_r)/n, as for uniform placement. A walk with drift μ
// toward 0 and variance σ² settles with |D| exponential of mean σ²/(2μ)
// = e/(n·w), whatever the sizes. This assumes a regular graph, where each
// vertex receives 1/n of the random endpoints; on any other the fixed
// bias deg(v)/2e − 1/n comes on top and D need not settle at all. Greedy's counterpart is the drift of one
// edge on one vertex pair: where DifferenceScale is large at the deep
// levels, haar leaves vertex pairs nearly unbalanced (the complete graph,
// whose sibling vertices share one edge inside G[S_i]: scale (n−1)/2).
func (in *Info) DifferenceScale(w float64) float64 {
	return float64(in.E) / (float64(in.N) * w)
}

// Info describes a Plan, for haar-info.
type Info struct {
	N, E        uint64
	Depth       int     // the longest root-to-leaf path of T
	Nodes       int     // internal nodes
	C           float64 // max over edges of Σ_i λ_i|f_i(e)|
	MaxSupport  int     // the most nodes any edge's law uses (∅ not counted)
	MeanSupport float64
	Levels      []Level
	// How the sets were split and routed.
	Spectral, BFS, Rerouted int
	CGIterations            int // in all
	MaxCGIterations         int
	Unconverged             int // electrical flows whose CG stopped at its cap (then fixed on a tree)
	Build                   time.Duration
	TableBytes              uint64 // what kernels.Haar reads: edges, alias columns, leaves, sizes
	PlanBytes               uint64 // everything the Plan holds, tables included
}

// EstimateBytes bounds from above the memory Build needs at its peak for g:
// about 48 bytes per (edge, node in its law) while the flows and tables are
// built, plus 64 per vertex. The nodes per edge are at most the depth of T
// on cycles, paths and general graphs, about depth/dims on tori, and a few
// on hypercubes and complete graphs. Measured peaks (PreprocessingBudget):
// cycle:2^20 886 MiB (bound 1.0 GiB), torus:1024,1024 705 MiB (1.2 GiB),
// random-regular:2^16,3 70 MiB (85 MiB).
//
// With RouteGraph an edge's law holds the ancestors of both its endpoints
// on the complete graph (2·depth) and any node at all elsewhere (n − 1;
// counted at 64 bytes: measured 48 on random-regular:2048,3).
func EstimateBytes(g *graph.Graph, route Route) uint64 {
	depth := uint64(bits.Len64(g.N)) + 2
	support := depth
	switch {
	case route == RouteGraph && g.Family == graph.Complete:
		support = 2 * depth
	case route == RouteGraph:
		return units.Add(units.Mul(64, units.Mul(g.E, g.N)), units.Mul(64, g.N))
	case g.Family == graph.Torus:
		support = depth/uint64(len(g.Sides)) + 2
	case g.Family == graph.Hypercube, g.Family == graph.Complete:
		support = 2
	}
	return units.Add(units.Mul(48, units.Mul(g.E, support)), units.Mul(64, g.N))
}

// CheckRoute reports whether opt.Route is available on g, in O(1), so that
// a caller can refuse before estimating memory or building: RouteGraph has
// closed forms on complete:n and conjugate gradients on general graphs (or
// on any graph with opt.Spectral), not on cycles, paths, tori, hypercubes.
func CheckRoute(g *graph.Graph, opt Options) error {
	if opt.Route == RouteGraph && !opt.Spectral {
		switch g.Family {
		case graph.Cycle, graph.Path, graph.Torus, graph.Hypercube:
			return fmt.Errorf("haar: graph %s: routing in all of G is available on complete:n and general graphs (random-regular, erdos-renyi, file); cycles, paths, tori and hypercubes have closed-form flows inside G[S_i] only",
				g.Spec)
		}
	}
	return nil
}

// Build preprocesses g. Errors: a disconnected graph (no strategy moves
// balls between components), 2^32 edges or more, or a decomposition too
// deep for 32-bit heap codes.
func Build(g *graph.Graph, opt Options) (*Plan, error) {
	start := time.Now()
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if g.N < 2 || g.E < 1 {
		return nil, fmt.Errorf("haar: graph %s: want at least 2 vertices and 1 edge", g.Spec)
	}
	if g.E >= 1<<32 || g.N >= 1<<31 {
		return nil, fmt.Errorf("haar: graph %s: %d vertices, %d edges: want fewer than 2^31 vertices and 2^32 edges", g.Spec, g.N, g.E)
	}
	if err := CheckRoute(g, opt); err != nil {
		return nil, err
	}
	b := &builder{g: g, opt: opt, n: uint32(g.N)}
	b.identity()
	if opt.Spectral || g.Family == graph.Explicit {
		eg, err := g.Materialize()
		if err != nil {
			return nil, err
		}
		b.g = eg
		b.general = true
		if err := b.prepareGeneral(); err != nil {
			return nil, err
		}
	}
	if err := b.decompose(); err != nil {
		return nil, err
	}
	p := &Plan{N: g.N, Order: b.order, Pos: b.pos, Lo: b.lo, Hi: b.hi, Nodes: b.nodes}
	if opt.KeepFlows {
		p.Flows = &Flows{Off: b.flowOff, Edge: b.flowEdge, Value: b.flowVal}
	}
	if err := b.tables(p); err != nil {
		return nil, err
	}
	p.Info = b.info(p)
	p.Info.Build = time.Since(start)
	return p, nil
}

// Set returns S_h as a slice of vertices (nil if h is no set).
func (p *Plan) Set(h uint32) []uint32 {
	if int(h) >= len(p.Lo) {
		return nil
	}
	return p.Order[p.Lo[h]:p.Hi[h]]
}

// Outcome is one entry of an edge's law: the child code A = 2i + flip of
// kernels.Haar (the ball goes to y when S_A is the heavier child), or 0 for
// ∅, with its probability.
type Outcome struct {
	Code uint32
	P    float64
}

// EdgeLaw appends to dst the law of edge e as its alias table realises it,
// one entry per outcome in table order, probabilities exact to float64.
func (p *Plan) EdgeLaw(dst []Outcome, e uint32) []Outcome {
	ed := p.Tables.Edges[e]
	start := len(dst)
	add := func(code uint32, w float64) {
		for i := start; i < len(dst); i++ {
			if dst[i].Code == code {
				dst[i].P += w
				return
			}
		}
		dst = append(dst, Outcome{code, w})
	}
	u := 1 / (float64(ed.Len) * (1 << 32))
	for j := range ed.Len {
		keep, own, alias := p.Tables.Column(e, j)
		if own == alias {
			add(own, (1<<32)*u)
			continue
		}
		add(own, float64(keep)*u)
		add(alias, float64((1<<32)-uint64(keep))*u)
	}
	return dst
}

func (b *builder) info(p *Plan) Info {
	in := Info{N: b.g.N, E: b.g.E, Nodes: len(p.Nodes), C: p.C,
		Spectral: b.nSpectral, BFS: b.nBFS, Rerouted: b.nRerouted, Unconverged: b.nUnconverged}
	for _, h := range p.Tables.Leaf {
		in.Depth = max(in.Depth, bits.Len32(h)-1)
	}
	for _, nd := range p.Nodes {
		for len(in.Levels) <= nd.Depth {
			in.Levels = append(in.Levels, Level{Depth: len(in.Levels), Min: nd.Lambda / p.C})
		}
		l := &in.Levels[nd.Depth]
		s := nd.Lambda / p.C
		l.Nodes++
		l.Min = min(l.Min, s)
		l.Max = max(l.Max, s)
		l.Mean += s
		in.CGIterations += nd.CGIterations
		in.MaxCGIterations = max(in.MaxCGIterations, nd.CGIterations)
	}
	for i := range in.Levels {
		in.Levels[i].Mean /= float64(in.Levels[i].Nodes)
	}
	total := 0
	for e, ed := range p.Tables.Edges {
		k := int(ed.Len)
		for j := range ed.Len { // ∅ is code 0 and, if present, owns its own column
			if _, own, _ := p.Tables.Column(uint32(e), j); own == 0 {
				k--
				break
			}
		}
		in.MaxSupport = max(in.MaxSupport, k)
		total += k
	}
	in.MeanSupport = float64(total) / float64(len(p.Tables.Edges))
	t := &p.Tables
	in.TableBytes = uint64(len(t.Edges))*uint64(unsafe.Sizeof(kernels.HaarEdge{})) +
		uint64(len(t.Slots))*uint64(unsafe.Sizeof(kernels.HaarSlot{})) + 4*uint64(len(t.Leaf)+len(t.Size)) +
		uint64(len(t.Wide))*uint64(unsafe.Sizeof(kernels.HaarWide{}))
	in.PlanBytes = in.TableBytes + 4*uint64(len(p.Order)+len(p.Pos)+len(p.Lo)+len(p.Hi)) +
		uint64(len(p.Nodes))*uint64(unsafe.Sizeof(Node{}))
	if f := p.Flows; f != nil {
		in.PlanBytes += 8*uint64(len(f.Off)) + 12*uint64(len(f.Edge))
	}
	return in
}
