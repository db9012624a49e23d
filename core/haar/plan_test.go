package haar

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/kernels"
)

// testGraph is a graph for the structural tests, with the build options.
type testGraph struct {
	name string
	g    *graph.Graph
	opt  Options
}

// star is K_{1,k}: every proper subset's induced subgraph is disconnected
// or a smaller star, so it exercises the BFS fallback and rerouting in
// ancestor sets.
func star(k uint32) *graph.Graph {
	var edges []uint32
	for v := uint32(1); v <= k; v++ {
		edges = append(edges, 0, v)
	}
	return graph.NewExplicit("star", uint64(k+1), edges, "test")
}

// barbell is two cliques of size k joined by one edge, with a parallel
// edge and a self-loop: a general graph whose Fiedler cut is obvious.
func barbell(k uint32) *graph.Graph {
	var edges []uint32
	for side := range uint32(2) {
		for u := range k {
			for v := u + 1; v < k; v++ {
				edges = append(edges, side*k+u, side*k+v)
			}
		}
	}
	edges = append(edges, k-1, k, k-1, k, 3, 3)
	return graph.NewExplicit("barbell", uint64(2*k), edges, "test")
}

func testGraphs(t *testing.T) []testGraph {
	var out []testGraph
	for _, c := range []struct {
		spec     string
		spectral bool
	}{
		{"cycle:64", false}, {"cycle:37", false}, {"path:50", false}, {"torus:8,6", false},
		{"torus:5,7", false}, {"torus:3,4,5", false}, {"hypercube:6", false}, {"complete:20", false},
		{"complete:21", false}, {"random-regular:128,3", false}, {"random-regular:100,4", false},
		{"cycle:40", true}, {"torus:6,6", true}, {"hypercube:5", true},
	} {
		g, err := graph.Parse(c.spec, graph.Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testGraph{c.spec, g, Options{Seed: 3, Spectral: c.spectral, KeepFlows: true}})
	}
	out = append(out, testGraph{"star:30", star(30), Options{KeepFlows: true}})
	out = append(out, testGraph{"barbell:8", barbell(8), Options{KeepFlows: true}})
	out = append(out, testGraph{"torus:6,5 unit", mustParse(t, "torus:6,5"), Options{Scale: ScaleUnit, KeepFlows: true}})
	for _, spec := range []string{"complete:20", "complete:21", "random-regular:64,3", "erdos-renyi:40,0.3"} {
		out = append(out, testGraph{spec + " route graph", mustParse(t, spec), Options{Seed: 3, Route: RouteGraph, KeepFlows: true}})
	}
	out = append(out, testGraph{"barbell:8 route graph", barbell(8), Options{Route: RouteGraph, KeepFlows: true}})
	return out
}

func mustParse(t testing.TB, spec string) *graph.Graph {
	g, err := graph.Parse(spec, graph.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func build(t *testing.T, tg testGraph) *Plan {
	p, err := Build(tg.g, tg.opt)
	if err != nil {
		t.Fatalf("%s: %v", tg.name, err)
	}
	return p
}

// demand is node k's Haar demand at every vertex: net inflow 1/|S_l| on
// S_l, −1/|S_r| on S_r, 0 elsewhere.
func demand(p *Plan, nd Node) []float64 {
	d := make([]float64, p.N)
	l, r := p.Set(2*nd.Heap), p.Set(2*nd.Heap+1)
	for _, v := range l {
		d[v] = 1 / float64(len(l))
	}
	for _, v := range r {
		d[v] = -1 / float64(len(r))
	}
	return d
}

// divergence is the net inflow of node k's flow at every vertex.
func divergence(g *graph.Graph, p *Plan, k int) []float64 {
	d := make([]float64, p.N)
	f := p.Flows
	for i := f.Off[k]; i < f.Off[k+1]; i++ {
		x, y := g.Edge(uint64(f.Edge[i]))
		d[y] += f.Value[i]
		d[x] -= f.Value[i]
	}
	return d
}

// The flows are exact up to rounding (closed forms, or CG plus the tree
// correction), so every tolerance here is a few hundred ulps of the
// largest quantity involved.
const tol = 1e-9

func TestSetsAreContiguousBalancedAndHeapOrdered(t *testing.T) {
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		n := int(p.N)
		seen := make([]bool, n)
		for i, v := range p.Order {
			if seen[v] || p.Pos[v] != uint32(i) {
				t.Fatalf("%s: Order/Pos not a permutation and its inverse at %d", tg.name, i)
			}
			seen[v] = true
		}
		if p.Lo[1] != 0 || p.Hi[1] != uint32(n) {
			t.Fatalf("%s: root is [%d,%d)", tg.name, p.Lo[1], p.Hi[1])
		}
		for _, nd := range p.Nodes {
			h := nd.Heap
			l, r := 2*h, 2*h+1
			if p.Lo[l] != p.Lo[h] || p.Hi[l] != p.Lo[r] || p.Hi[r] != p.Hi[h] || p.Lo[r] <= p.Lo[l] || p.Hi[r] <= p.Lo[r] {
				t.Fatalf("%s: node %d [%d,%d) children [%d,%d) [%d,%d)", tg.name, h, p.Lo[h], p.Hi[h], p.Lo[l], p.Hi[l], p.Lo[r], p.Hi[r])
			}
			nl, nr := p.Hi[l]-p.Lo[l], p.Hi[r]-p.Lo[r]
			general := tg.opt.Spectral || tg.g.Family == graph.Explicit
			// A torus halves a side: unequal when the other sides are odd.
			// General graphs trade balance for connected children within
			// the depth budget.
			if !general && tg.g.Family != graph.Torus && nl-nr > 1 {
				t.Fatalf("%s: node %d splits %d into %d + %d", tg.name, h, nl+nr, nl, nr)
			}
			if limit := 1 << (bits.Len(uint(n-1)) + depthSlack - nd.Depth - 1); general && (nl > uint32(limit) || nr > uint32(limit)) {
				t.Fatalf("%s: node %d at depth %d splits into %d + %d, beyond the budget %d", tg.name, h, nd.Depth, nl, nr, limit)
			}
			if nd.Depth != bits.Len32(h)-1 {
				t.Fatalf("%s: node %d at depth %d", tg.name, h, nd.Depth)
			}
		}
		for v, h := range p.Tables.Leaf {
			if s := p.Set(h); len(s) != 1 || s[0] != uint32(v) {
				t.Fatalf("%s: leaf of %d is set %d = %v", tg.name, v, h, s)
			}
		}
		if want := bits.Len(uint(n - 1)); tg.g.Family != graph.Torus && p.Info.Depth != want && !(p.Info.Depth <= want+depthSlack && (tg.opt.Spectral || tg.g.Family == graph.Explicit)) {
			t.Errorf("%s: depth %d, want ⌈log2 n⌉ = %d", tg.name, p.Info.Depth, want)
		}
		if p.Info.Nodes != n-1 {
			t.Errorf("%s: %d internal nodes, want n−1 = %d", tg.name, p.Info.Nodes, n-1)
		}
	}
}

// TestFlowsMeetDemands checks conservation: f_i's net inflow is the Haar
// demand of node i at every vertex, and f_i uses only edges inside its
// routing set.
func TestFlowsMeetDemands(t *testing.T) {
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		rerouted := 0
		for k, nd := range p.Nodes {
			want := demand(p, nd)
			got := divergence(tg.g, p, k)
			for v := range want {
				if math.Abs(got[v]-want[v]) > tol {
					t.Fatalf("%s: node %d at vertex %d: inflow %g, want %g", tg.name, nd.Heap, v, got[v], want[v])
				}
			}
			lo, hi := p.Lo[nd.Route], p.Hi[nd.Route]
			if nd.Route != nd.Heap {
				rerouted++
				if nd.Heap>>(bits.Len32(nd.Heap)-bits.Len32(nd.Route)) != nd.Route {
					t.Fatalf("%s: node %d routed in %d, not an ancestor", tg.name, nd.Heap, nd.Route)
				}
			}
			for i := p.Flows.Off[k]; i < p.Flows.Off[k+1]; i++ {
				x, y := tg.g.Edge(uint64(p.Flows.Edge[i]))
				if px, py := p.Pos[x], p.Pos[y]; px < lo || px >= hi || py < lo || py >= hi {
					t.Fatalf("%s: node %d's flow uses edge (%d,%d) outside its routing set", tg.name, nd.Heap, x, y)
				}
			}
		}
		if tg.name == "star:30" && rerouted == 0 {
			t.Errorf("star: no node was rerouted; the fallback went untested")
		}
	}
}

// TestDriftsAreOrthogonal checks the paper's key property: node i's drift
// (its flow's net inflow) sums to zero over every tree set that is not a
// proper subset of S_i (ancestors, S_i itself, disjoint sets), and is
// orthogonal to every other node's Haar vector ψ_j = 1_{S_l(j)}/|S_l(j)| −
// 1_{S_r(j)}/|S_r(j)|, so it changes no other sibling gap. (Sets strictly
// inside S_l(i) receive their uniform share |S_j|/|S_l(i)|: not zero, but
// spread evenly over S_j's children.)
func TestDriftsAreOrthogonal(t *testing.T) {
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		for k, ndi := range p.Nodes {
			d := divergence(tg.g, p, k)
			prefix := make([]float64, p.N+1) // over positions
			for i, v := range p.Order {
				prefix[i+1] = prefix[i] + d[v]
			}
			sum := func(h uint32) float64 { return prefix[p.Hi[h]] - prefix[p.Lo[h]] }
			li, hi := p.Lo[ndi.Heap], p.Hi[ndi.Heap]
			for h := uint32(1); h < uint32(len(p.Lo)); h++ {
				if p.Hi[h] == p.Lo[h] || h != ndi.Heap && p.Lo[h] >= li && p.Hi[h] <= hi {
					continue
				}
				if s := sum(h); math.Abs(s) > tol {
					t.Fatalf("%s: node %d's drift sums to %g over set %d", tg.name, ndi.Heap, s, h)
				}
			}
			for _, ndj := range p.Nodes {
				if ndj.Heap == ndi.Heap {
					continue
				}
				l, r := 2*ndj.Heap, 2*ndj.Heap+1
				ip := sum(l)/float64(p.Hi[l]-p.Lo[l]) - sum(r)/float64(p.Hi[r]-p.Lo[r])
				if math.Abs(ip) > tol {
					t.Fatalf("%s: ⟨drift %d, ψ_%d⟩ = %g", tg.name, ndi.Heap, ndj.Heap, ip)
				}
			}
		}
	}
}

// TestEdgeLaws checks normalisation and the alias tables: Σ_i P_e(i) ≤ 1
// on every edge with equality on some (C is attained), the table of every
// edge reproduces P_e(i) = λ_i|f_i(e)|/C and ∅ = 1 − Σ to within its
// 2^-32-per-column rounding, and each code's direction bit is the flow's
// sign (σ_e(i) = −sign f_i(x→y): code 2i+1 for a positive flow).
func TestEdgeLaws(t *testing.T) {
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		want := make([]map[uint32]float64, tg.g.E)
		for e := range want {
			want[e] = map[uint32]float64{}
		}
		for k, nd := range p.Nodes {
			for i := p.Flows.Off[k]; i < p.Flows.Off[k+1]; i++ {
				code := 2 * nd.Heap
				if p.Flows.Value[i] > 0 {
					code++
				}
				want[p.Flows.Edge[i]][code] += nd.Lambda * math.Abs(p.Flows.Value[i]) / p.C
			}
		}
		top := 0.0
		var law []Outcome
		for e := range want {
			total := 0.0
			for _, q := range want[e] {
				total += q
			}
			if total > 1+1e-12 {
				t.Fatalf("%s: edge %d: Σ_i P_e(i) = %v > 1", tg.name, e, total)
			}
			top = max(top, total)
			want[e][0] = max(0, 1-total)
			law = p.EdgeLaw(law[:0], uint32(e))
			sum := 0.0
			for _, o := range law {
				sum += o.P
				res := 2 * float64(len(law)) * 0x1p-32 // rounding of weights and the ∅ remainder
				if math.Abs(o.P-want[e][o.Code]) > res {
					t.Fatalf("%s: edge %d outcome %d: table %v, want %v", tg.name, e, o.Code, o.P, want[e][o.Code])
				}
				delete(want[e], o.Code)
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("%s: edge %d: table sums to %v", tg.name, e, sum)
			}
			for code, q := range want[e] {
				if q > float64(len(law)+1)*0x1p-32 {
					t.Fatalf("%s: edge %d: outcome %d of probability %v missing from its table", tg.name, e, code, q)
				}
			}
		}
		if math.Abs(top-1) > 1e-12 {
			t.Errorf("%s: the largest Σ_i P_e(i) is %v, want 1 (C attained)", tg.name, top)
		}
	}
}

// TestClosedFormsAreElectrical checks each closed-form flow against the
// electrical flow of G[S_i] computed densely (grounded Laplacian solve),
// and the conjugate-gradient route against the same on a general graph.
func TestClosedFormsAreElectrical(t *testing.T) {
	for _, tg := range []testGraph{
		{"cycle:12", mustParse(t, "cycle:12"), Options{KeepFlows: true}},
		{"path:11", mustParse(t, "path:11"), Options{KeepFlows: true}},
		{"torus:6,5", mustParse(t, "torus:6,5"), Options{KeepFlows: true}},
		{"torus:3,4,3", mustParse(t, "torus:3,4,3"), Options{KeepFlows: true}},
		{"hypercube:4", mustParse(t, "hypercube:4"), Options{KeepFlows: true}},
		{"complete:9", mustParse(t, "complete:9"), Options{KeepFlows: true}},
		{"random-regular:40,3", mustParse(t, "random-regular:40,3"), Options{KeepFlows: true}},
		{"complete:9 route graph", mustParse(t, "complete:9"), Options{Route: RouteGraph, KeepFlows: true}},
		{"complete:12 route graph", mustParse(t, "complete:12"), Options{Route: RouteGraph, KeepFlows: true}},
		{"random-regular:40,3 route graph", mustParse(t, "random-regular:40,3"), Options{Route: RouteGraph, KeepFlows: true}},
	} {
		p := build(t, tg)
		for k, nd := range p.Nodes {
			want := denseElectrical(tg.g, p, nd)
			got := make([]float64, tg.g.E)
			for i := p.Flows.Off[k]; i < p.Flows.Off[k+1]; i++ {
				got[p.Flows.Edge[i]] = p.Flows.Value[i]
			}
			for e := range got {
				if math.Abs(got[e]-want[e]) > 1e-8 {
					t.Fatalf("%s: node %d edge %d: flow %g, electrical %g", tg.name, nd.Heap, e, got[e], want[e])
				}
			}
		}
	}
}

// denseElectrical is the electrical flow of node nd's demand in the
// component of G[S_Route] that holds S_i, by a dense solve with one vertex
// grounded.
func denseElectrical(g *graph.Graph, p *Plan, nd Node) []float64 {
	in := map[uint32]bool{}
	for _, v := range p.Set(nd.Route) {
		in[v] = true
	}
	set := []uint32{p.Set(nd.Heap)[0]}
	reached := map[uint32]bool{set[0]: true}
	for grew := true; grew; { // the component, by repeated sweeps: slow and obvious
		grew = false
		for e := range g.E {
			x, y := g.Edge(e)
			u, v := uint32(x), uint32(y)
			if in[u] && in[v] && reached[u] != reached[v] {
				w := u
				if reached[u] {
					w = v
				}
				reached[w] = true
				set = append(set, w)
				grew = true
			}
		}
	}
	s := len(set)
	loc := map[uint32]int{}
	for i, v := range set {
		loc[v] = i
	}
	lap := mat.NewDense(s, s, nil)
	for e := range g.E {
		x, y := g.Edge(e)
		i, okx := loc[uint32(x)]
		j, oky := loc[uint32(y)]
		if !okx || !oky || i == j {
			continue
		}
		lap.Set(i, i, lap.At(i, i)+1)
		lap.Set(j, j, lap.At(j, j)+1)
		lap.Set(i, j, lap.At(i, j)-1)
		lap.Set(j, i, lap.At(j, i)-1)
	}
	d := demand(p, nd)
	rhs := mat.NewVecDense(s, nil)
	for i, v := range set {
		rhs.SetVec(i, -d[v]) // L φ is the net outflow
	}
	// Ground vertex 0: replace its row by φ_0 = 0.
	for j := range s {
		lap.Set(0, j, 0)
	}
	lap.Set(0, 0, 1)
	rhs.SetVec(0, 0)
	var phi mat.VecDense
	if err := phi.SolveVec(lap, rhs); err != nil {
		panic(fmt.Sprintf("%s node %d set %v: %v", g.Spec, nd.Heap, set, err))
	}
	f := make([]float64, g.E)
	for e := range g.E {
		x, y := g.Edge(e)
		i, okx := loc[uint32(x)]
		j, oky := loc[uint32(y)]
		if okx && oky && i != j {
			f[e] = phi.AtVec(i) - phi.AtVec(j)
		}
	}
	return f
}

func TestBuildErrors(t *testing.T) {
	twoEdges := graph.NewExplicit("two", 4, []uint32{0, 1, 2, 3}, "test")
	if _, err := Build(twoEdges, Options{}); err == nil {
		t.Error("Build accepted a disconnected graph")
	}
	if _, err := Build(mustParse(t, "cycle:8"), Options{Scale: 9}); err == nil {
		t.Error("Build accepted Scale 9")
	}
	if _, err := Build(mustParse(t, "cycle:8"), Options{Route: 9}); err == nil {
		t.Error("Build accepted Route 9")
	}
	for _, spec := range []string{"cycle:8", "path:8", "torus:4,4", "hypercube:3"} {
		if _, err := Build(mustParse(t, spec), Options{Route: RouteGraph}); err == nil {
			t.Errorf("Build routed %s in all of G, which has no closed form for it", spec)
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	g := mustParse(t, "random-regular:200,3")
	a, b := build(t, testGraph{"a", g, Options{Seed: 5}}), build(t, testGraph{"b", g, Options{Seed: 5}})
	if !slices.Equal(a.Order, b.Order) || !slices.Equal(a.Tables.Slots, b.Tables.Slots) || !slices.Equal(a.Tables.Wide, b.Tables.Wide) || !slices.Equal(a.Tables.Edges, b.Tables.Edges) {
		t.Error("two builds with the same seed differ")
	}
}

// TestDriftPointsToLighterChild checks the direction rule end to end: with
// any loads, the expected drift the tables produce (kernels.Haar's rule:
// outcome A sends the ball to y when S_A is heavier on average, to x when
// lighter, a coin on ties or ∅) is Σ_i sgn_i·(λ_i/C)·(node i's Haar demand),
// sgn_i = +1 when S_r(i) is heavier (mass moves to S_l), −1 when S_l is, 0
// on a tie: every node pushes toward its lighter child, with strength λ_i/C.
func TestDriftPointsToLighterChild(t *testing.T) {
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		loads := make([]uint64, p.N)
		for v := range loads {
			loads[v] = uint64(v*v*7+3*v) % 3 // small values: many ties
		}
		sum := func(h uint32) (l, s uint64) {
			for _, v := range p.Set(h) {
				l += loads[v]
			}
			return l, uint64(len(p.Set(h)))
		}
		cmpAvg := func(a, b uint32) int { // sign of avg(S_a) − avg(S_b)
			la, sa := sum(a)
			lb, sb := sum(b)
			return cmpInt(la*sb, lb*sa)
		}
		got := make([]float64, p.N)
		var law []Outcome
		for e := range uint32(tg.g.E) {
			x, y := tg.g.Edge(uint64(e))
			for _, o := range p.EdgeLaw(law[:0], e) {
				if o.Code == 0 {
					continue
				}
				dir := float64(cmpAvg(o.Code, o.Code^1)) // +1: to y
				got[y] += dir * o.P
				got[x] -= dir * o.P
			}
		}
		want := make([]float64, p.N)
		for _, nd := range p.Nodes {
			sgn := float64(cmpAvg(2*nd.Heap+1, 2*nd.Heap))
			for v, d := range demand(p, nd) {
				want[v] += sgn * nd.Lambda / p.C * d
			}
		}
		for v := range want {
			if math.Abs(got[v]-want[v]) > 1e-7 {
				t.Fatalf("%s: vertex %d: drift %g, want %g", tg.name, v, got[v], want[v])
			}
		}
	}
}

func cmpInt(a, b uint64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// TestColumnCodes checks the 16-bit column fields: every field decodes
// (kernels.HaarTables.Column) to ∅ or a child of a node of T, Wide holds
// exactly the columns with an escaped field, in order, and some graphs
// exercise the fields that code rerouted nodes (neither endpoint in S_i).
func TestColumnCodes(t *testing.T) {
	rerouted := 0
	for _, tg := range testGraphs(t) {
		p := build(t, tg)
		tb := &p.Tables
		nodes := map[uint32]bool{}
		for _, nd := range p.Nodes {
			nodes[nd.Heap] = true
		}
		var wide []uint32
		for e, ed := range tb.Edges {
			lx := tb.Leaf[ed.X]
			for j := range ed.Len {
				col := tb.Slots[ed.Off+j]
				if col.Own == kernels.HaarEscape || col.Alias == kernels.HaarEscape {
					wide = append(wide, ed.Off+j)
				}
				_, own, alias := tb.Column(uint32(e), j)
				for _, a := range []uint32{own, alias} {
					if a != 0 && !nodes[a>>1] {
						t.Fatalf("%s: edge %d column %d: code %d is no child of a node", tg.name, e, j, a)
					}
					if a != 0 && bits.Len32(a) <= bits.Len32(lx) && lx>>(bits.Len32(lx)-bits.Len32(a)+1) != a>>1 {
						rerouted++
					}
				}
			}
		}
		got := make([]uint32, len(tb.Wide))
		for i, w := range tb.Wide {
			got[i] = w.Slot
		}
		if !slices.Equal(got, wide) {
			t.Fatalf("%s: Wide holds columns %v, want those with an escaped field %v", tg.name, got, wide)
		}
	}
	if rerouted == 0 {
		t.Errorf("no field codes a rerouted node: the test graphs no longer exercise them")
	}
	t.Logf("%d fields code rerouted nodes", rerouted)
}
