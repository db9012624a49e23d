package graph

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// The substrings of Origin that name each way drawRegular can go.
const (
	viaComplete   = "the complete graph, the only"
	viaComplement = "the complement of a random"
	viaSwitching  = "McKay–Wormald loop and double-pair switchings"
	viaRejection  = "pairing model with rejection"
	viaChain      = "then the switch chain"
)

// checkSimpleRegular fails t unless g is a simple d-regular graph on n
// vertices with n·d/2 edges: from the edge array (a set of pairs), and again
// from the CSR adjacency.
func checkSimpleRegular(t *testing.T, g *Graph, n, d uint64) {
	t.Helper()
	if g.Family != Explicit || g.N != n || g.E != n*d/2 || uint64(len(g.Edges)) != 2*g.E {
		t.Fatalf("family %v, n = %d, E = %d, %d endpoints; want an explicit graph, n = %d, E = %d", g.Family, g.N, g.E, len(g.Edges), n, n*d/2)
	}
	deg := make([]uint64, n)
	pairs := make(map[[2]uint64]bool, g.E)
	for e := range g.E {
		u, v := g.Edge(e)
		switch {
		case u >= n || v >= n:
			t.Fatalf("edge %d = {%d, %d}: a vertex out of range", e, u, v)
		case u == v:
			t.Fatalf("edge %d = {%d, %d}: a self-loop", e, u, v)
		case pairs[[2]uint64{min(u, v), max(u, v)}]:
			t.Fatalf("edge %d = {%d, %d}: repeated", e, u, v)
		}
		pairs[[2]uint64{min(u, v), max(u, v)}] = true
		deg[u]++
		deg[v]++
	}
	var nb []uint64
	for v := range n {
		if deg[v] != d || g.Degree(v) != d {
			t.Fatalf("vertex %d: degree %d in the edge array, %d in the CSR; want %d", v, deg[v], g.Degree(v), d)
		}
		nb = g.Neighbors(nb[:0], v)
		for _, w := range nb {
			if !pairs[[2]uint64{min(v, w), max(v, w)}] {
				t.Fatalf("CSR lists %d as a neighbour of %d, the edge array does not", w, v)
			}
		}
	}
}

// TestRandomRegularPaths draws from every way drawRegular can go, checks the
// Origin names it, and that the graph is simple and d-regular. The pairs
// were found by reading drawRegular: d = n−1 is complete; 2d > n−1 is a
// complement; d ≤ 2 and small n go to rejection (e^{(d²−1)/4}·|E| is the
// smaller predicted work); d = 3 from n = 44, d = 4 from n = 54 go to the
// switching sampler (switchAttempts is finite there); d large against n
// leaves both over budget, so the chain.
func TestRandomRegularPaths(t *testing.T) {
	cases := []struct {
		n, d uint64
		via  []string
		long bool // skipped under -short
	}{
		{2, 1, []string{viaComplete}, false},
		{6, 5, []string{viaComplete}, false},
		{1001, 1000, []string{viaComplete}, true},
		{6, 3, []string{viaComplement, viaRejection}, false},
		{7, 4, []string{viaComplement, viaRejection}, false},
		{50, 46, []string{viaComplement, viaSwitching}, false},
		{40, 30, []string{viaComplement, viaChain}, false},
		{4, 1, []string{viaRejection}, false},
		{1000, 1, []string{viaRejection}, false},
		{6, 2, []string{viaRejection}, false},
		{1001, 2, []string{viaRejection}, false},
		{8, 3, []string{viaRejection}, false},
		{42, 3, []string{viaRejection}, false},
		{53, 4, []string{viaRejection}, false},
		{20, 6, []string{viaRejection}, true}, // about 10^4–10^5 attempts
		{44, 3, []string{viaSwitching}, false},
		{54, 4, []string{viaSwitching}, false},
		{1000, 3, []string{viaSwitching}, false},
		{1000, 10, []string{viaSwitching}, false},
		{100000, 3, []string{viaSwitching}, true},
		{10000, 16, []string{viaSwitching}, true},
		{20, 8, []string{viaChain}, false},
		{30, 10, []string{viaChain}, false},
		{200, 20, []string{viaChain}, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d,d=%d", c.n, c.d), func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long")
			}
			for seed := range uint64(3) {
				rng := kernels.NewPCG32(seed, 11)
				g, err := RandomRegular("random-regular:x", c.n, c.d, &rng)
				if err != nil {
					t.Fatal(err)
				}
				checkSimpleRegular(t, g, c.n, c.d)
				for _, via := range c.via {
					if !strings.Contains(g.Origin, via) {
						t.Fatalf("seed %d: Origin %q does not say %q", seed, g.Origin, via)
					}
				}
				if strings.Contains(g.Origin, "gave up") {
					t.Fatalf("seed %d: an exact method gave up: %s", seed, g.Origin)
				}
				if s := g.Stats(); !s.Regular || !s.Simple() || s.MinDegree != c.d {
					t.Fatalf("seed %d: Stats says %v", seed, s)
				}
			}
		})
	}
}

func TestRandomRegularErrors(t *testing.T) {
	cases := []struct {
		n, d uint64
		want string
	}{
		{5, 3, "n·d is odd"},
		{7, 1, "n·d is odd"},
		{6, 6, "degree must be below n"},
		{6, 7, "degree must be below n"},
		{1, 1, "degree must be below n"},
		{6, 0, "d ≥ 1"},
		{0, 0, "1 ≤ n"},
		{0, 1, "1 ≤ n"},
		{MaxVertices + 1, 2, "1 ≤ n"},
		{1<<32 - 2, 2, "more than 2^31"},
		{1<<31 + 2, 2, "more than 2^31"},
		{1 << 22, 1025, "more than 2^31"},
	}
	for _, c := range cases {
		rng := kernels.NewPCG32(1, 1)
		g, err := RandomRegular("random-regular:x", c.n, c.d, &rng)
		if err == nil {
			t.Errorf("n = %d, d = %d: no error, %d edges", c.n, c.d, g.E)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--graph random-regular:x") {
			t.Errorf("n = %d, d = %d: error %q, want it to name the flag and say %q", c.n, c.d, err, c.want)
		}
	}
}

// pairIndex numbers the pairs {u < v} of n ≤ 11 vertices in lexicographic
// order, so that a graph is a bit set of its pairs.
func pairIndex(n int) [][]int {
	idx := make([][]int, n)
	k := 0
	for u := range n {
		idx[u] = make([]int, n)
		for v := u + 1; v < n; v++ {
			idx[u][v] = k
			k++
		}
	}
	return idx
}

// graphKey is g as a bit set of its pairs; g must be simple.
func graphKey(g *Graph, idx [][]int) uint64 {
	var key uint64
	for e := range g.E {
		u, v := g.Edge(e)
		key |= 1 << idx[min(u, v)][max(u, v)]
	}
	return key
}

// regularKeys lists every labelled simple d-regular graph on n ≤ 11
// vertices by backtracking over the pairs in lexicographic order, closing
// each vertex's row only when its degree is d.
func regularKeys(n, d int) []uint64 {
	type pair struct{ u, v int }
	var pairs []pair
	for u := range n {
		for v := u + 1; v < n; v++ {
			pairs = append(pairs, pair{u, v})
		}
	}
	deg := make([]int, n)
	var out []uint64
	var rec func(i int, key uint64)
	rec = func(i int, key uint64) {
		if i == len(pairs) {
			if deg[n-1] == d {
				out = append(out, key)
			}
			return
		}
		u, v := pairs[i].u, pairs[i].v
		closes := v == n-1 // the last pair of u's row
		if deg[u] < d && deg[v] < d {
			deg[u]++
			deg[v]++
			if !closes || deg[u] == d {
				rec(i+1, key|1<<i)
			}
			deg[u]--
			deg[v]--
		}
		if !closes || deg[u] == d {
			rec(i+1, key)
		}
	}
	rec(0, 0)
	return out
}

// TestRandomRegularUniformEnumerated draws many graphs with the production
// path for small (n, d), where the labelled d-regular graphs can be listed,
// and tests them against the uniform law (χ², p = 1e-4). The counts are
// OEIS A001205 (2-regular: 70 on 6, 465 on 7) and A005815 (cubic: 70 on 6,
// 19355 on 8); complements have as many.
func TestRandomRegularUniformEnumerated(t *testing.T) {
	cases := []struct {
		n, d    int
		graphs  int
		via     string
		perCell int // expected draws per graph
		long    bool
	}{
		{6, 2, 70, viaRejection, 100, false},
		{6, 3, 70, viaComplement, 100, false},
		{7, 4, 465, viaComplement, 40, false},
		{8, 3, 19355, viaRejection, 20, false},
		{8, 3, 19355, viaRejection, 100, true},
		{8, 4, 19355, viaComplement, 20, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d,d=%d,%d", c.n, c.d, c.perCell), func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("long")
			}
			keys := regularKeys(c.n, c.d)
			if len(keys) != c.graphs {
				t.Fatalf("enumerated %d graphs, want %d", len(keys), c.graphs)
			}
			law := make(map[uint64]float64, len(keys))
			for _, k := range keys {
				law[k] = 1 / float64(len(keys))
			}
			idx := pairIndex(c.n)
			trials := c.perCell * len(keys)
			obs := make(map[uint64]int, len(keys))
			rng := kernels.NewPCG32(uint64(c.n*100+c.d), uint64(c.perCell))
			for range trials {
				g, err := RandomRegular("random-regular:x", uint64(c.n), uint64(c.d), &rng)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(g.Origin, c.via) {
					t.Fatalf("Origin %q does not say %q", g.Origin, c.via)
				}
				obs[graphKey(g, idx)]++
			}
			stat, limit, df := stattest.Law(law, obs, trials)
			t.Logf("%d draws over %d graphs: χ² = %.1f on %d df (limit %.1f at 1e-4)", trials, len(keys), stat, df, limit)
			if stat > limit {
				t.Errorf("not uniform: χ² = %.1f > %.1f on %d df", stat, limit, df)
			}
		})
	}
}

// cycleCounts returns the triangles and 4-cycles of a graph on at most 64
// vertices, and whether it is simple and d-regular. Cycle counts are
// isomorphism invariants: every sampler here is symmetric under relabelling,
// so a bias can only show in the law of the unlabelled graph, and short
// cycles are where switchings act.
func cycleCounts(edges []uint32, n, d int) (counts [2]int, ok bool) {
	adj := make([]uint64, n)
	for i := 0; i < len(edges); i += 2 {
		u, v := edges[i], edges[i+1]
		if u == v || adj[u]>>v&1 == 1 {
			return counts, false
		}
		adj[u] |= 1 << v
		adj[v] |= 1 << u
	}
	var t3, t4 int
	for u := range n {
		if bits.OnesCount64(adj[u]) != d {
			return counts, false
		}
		for v := u + 1; v < n; v++ {
			c := bits.OnesCount64(adj[u] & adj[v])
			if adj[u]>>v&1 == 1 {
				t3 += c // each triangle once per edge
			}
			t4 += c * (c - 1) / 2 // each 4-cycle once per diagonal
		}
	}
	return [2]int{t3 / 3, t4 / 2}, len(edges) == n*d
}

// cycleLaw tallies cycleCounts over draws of a sampler, failing t at a draw
// that is not simple and d-regular.
func cycleLaw(t *testing.T, n, d uint64, trials int, draw func() []uint32) map[[2]int]int {
	t.Helper()
	obs := map[[2]int]int{}
	for range trials {
		edges := draw()
		k, ok := cycleCounts(edges, int(n), int(d))
		if !ok {
			t.Fatalf("not a simple %d-regular graph on %d vertices: %v", d, n, edges)
		}
		obs[k]++
	}
	return obs
}

// rejectionDraws is the reference sampler: drawRejection, exactly uniform
// (TestRandomRegularUniformEnumerated checks it where the graphs can be
// listed, and its proof is two lines).
func rejectionDraws(t *testing.T, n, d uint64, rng *kernels.PCG32) func() []uint32 {
	return func() []uint32 {
		edges, _, ok := drawRejection(n, d, rng, math.MaxUint64/2)
		if !ok {
			t.Fatal("drawRejection gave up")
		}
		return edges
	}
}

// switchingsSaid finds the switchings the sampler made in an Origin.
var switchingsSaid = regexp.MustCompile(`, (\d+) switchings?\)`)

// TestSwitchSamplerMatchesRejection compares the law of the McKay–Wormald
// switching sampler's graphs with the rejection sampler's: the joint law of
// (triangles, 4-cycles), by a two-sample χ² at p = 1e-4. Labelled graphs
// cannot be listed where switchings happen (the bounds allow loop
// switchings from n = 11 and double switchings from n = 15 for d = 3), so
// the sampler runs directly at small n where production would not use it
// (0.4–1.6 switchings a draw) and through RandomRegular where production
// does. This catches switchings that break simplicity or f-rejection gone
// far wrong (TestUniformityTestsHavePower), but not subtle b-rejection
// errors: with b-rejection removed altogether it still passed at 2·10^4
// draws, the bias being a few per cent on graphs rich in short cycles.
// TestSwitchingCountsMatchBruteForce is the exactness check that bites.
func TestSwitchSamplerMatchesRejection(t *testing.T) {
	cases := []struct {
		n, d       uint64
		production bool // through RandomRegular (switchAttempts finite)
	}{
		{16, 3, false},
		{20, 3, false},
		{30, 4, false},
		{44, 3, true},
		{60, 4, true},
	}
	trials := 200000
	if testing.Short() {
		trials = 20000
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d,d=%d", c.n, c.d), func(t *testing.T) {
			if inf := math.IsInf(switchAttempts(c.n, c.d), 1); inf == c.production {
				t.Fatalf("switchAttempts(%d, %d) = %v: the case no longer tests what it says", c.n, c.d, switchAttempts(c.n, c.d))
			}
			rng := kernels.NewPCG32(c.n, c.d)
			var switchings uint64
			sw := func() []uint32 {
				if c.production {
					g, err := RandomRegular("random-regular:x", c.n, c.d, &rng)
					if err != nil {
						t.Fatal(err)
					}
					m := switchingsSaid.FindStringSubmatch(g.Origin)
					if !strings.Contains(g.Origin, viaSwitching) || m == nil {
						t.Fatalf("Origin %q: not the switching sampler", g.Origin)
					}
					k, _ := strconv.ParseUint(m[1], 10, 64)
					switchings += k
					return g.Edges
				}
				s := newSwitchSampler(c.n, c.d, &rng)
				if !s.run(1 << 20) {
					t.Fatal("switching sampler gave up")
				}
				switchings += s.switchings
				return s.edges()
			}
			a := cycleLaw(t, c.n, c.d, trials, sw)
			ref := kernels.NewPCG32(c.n, c.d+1000)
			b := cycleLaw(t, c.n, c.d, trials, rejectionDraws(t, c.n, c.d, &ref))
			stat, limit, df := stattest.TwoSample(a, b)
			t.Logf("%d draws each: χ² = %.1f on %d df (limit %.1f at 1e-4); %.2f switchings a draw", trials, stat, df, limit, float64(switchings)/float64(trials))
			if stat > limit {
				t.Errorf("switching sampler and rejection differ: χ² = %.1f > %.1f on %d df", stat, limit, df)
			}
			if switchings < uint64(trials)/4 {
				t.Errorf("%d switchings in %d draws: the case barely exercises them", switchings, trials)
			}
		})
	}
}

// slowPairing classifies a pairing the slow, obvious way, from a matrix of
// pair multiplicities, for TestSwitchingCountsMatchBruteForce.
type slowPairing struct {
	n, d int
	mult []int // mult[u·n+w]: pairs joining u and w, both orders; a loop once
}

func newSlowPairing(n, d int) *slowPairing {
	return &slowPairing{n: n, d: d, mult: make([]int, n*n)}
}

// load reads the pairing mate (point p is at vertex p/d) and returns its
// loops and double pairs, and whether it is in a class at all: no pair of
// multiplicity 3 or more, no vertex with two loops.
func (sp *slowPairing) load(mate []uint32) (loops, doubles int, ok bool) {
	n, d := sp.n, sp.d
	clear(sp.mult)
	for p, q := range mate {
		if p < int(q) {
			u, w := p/d, int(q)/d
			sp.mult[u*n+w]++
			if u != w {
				sp.mult[w*n+u]++
			}
		}
	}
	ok = true
	for u := range n {
		switch sp.mult[u*n+u] {
		case 0:
		case 1:
			loops++
		default:
			ok = false
		}
		for w := u + 1; w < n; w++ {
			switch k := sp.mult[u*n+w]; {
			case k == 2:
				doubles++
			case k > 2:
				ok = false
			}
		}
	}
	return loops, doubles, ok
}

// single: p's pair joins two vertices that no other pair joins.
func (sp *slowPairing) single(mate []uint32, p uint32) bool {
	u, w := int(p)/sp.d, int(mate[p])/sp.d
	return u != w && sp.mult[u*sp.n+w] == 1
}

func (sp *slowPairing) adjacent(u, w uint32) bool { return sp.mult[int(u)*sp.n+int(w)] > 0 }

// checkSamplerState fails t unless the sampler's incremental bookkeeping
// (loops, double pairs, defects, |T|) is what a fresh, slow classification
// of its pairing gives.
func checkSamplerState(t *testing.T, s *switchSampler, sp *slowPairing) {
	t.Helper()
	l, m, ok := sp.load(s.mate)
	if !ok || l != len(s.loops) || m != len(s.doubles) {
		t.Fatalf("pairing has %d loops and %d double pairs (in a class: %v); the sampler counts %d and %d", l, m, ok, len(s.loops), len(s.doubles))
	}
	n, d := sp.n, sp.d
	listed := map[[2]uint32]bool{}
	for _, v := range s.loops {
		if sp.mult[int(v)*n+int(v)] != 1 || listed[[2]uint32{v, v}] {
			t.Fatalf("the sampler lists a loop at %d, the pairing has none or it is listed twice", v)
		}
		listed[[2]uint32{v, v}] = true
	}
	for _, uw := range s.doubles {
		uw = [2]uint32{min(uw[0], uw[1]), max(uw[0], uw[1])}
		if sp.mult[int(uw[0])*n+int(uw[1])] != 2 || uw[0] == uw[1] || listed[uw] {
			t.Fatalf("the sampler lists a double pair %v, the pairing has none or it is listed twice", uw)
		}
		listed[uw] = true
	}
	var tsum int64
	for v := range n {
		defects := 0
		for w := range n {
			if k := sp.mult[v*n+w]; k == 2 || (w == v && k == 1) {
				defects += 2
			}
		}
		loop := sp.mult[v*n+v] == 1
		if int(s.defects[v]) != defects || s.loopAt[v] != loop {
			t.Fatalf("vertex %d: %d defect points (loop %v), the sampler says %d (%v)", v, defects, loop, s.defects[v], s.loopAt[v])
		}
		if !loop {
			x := int64(d - defects)
			tsum += x * (x - 1)
		}
	}
	if tsum != s.tsum {
		t.Fatalf("|T| = %d, the sampler says %d", tsum, s.tsum)
	}
}

// bruteLoopInverses counts, for the sampler's pairing P' (just after a loop
// switching), every structure (a1, a2, q, t) whose inverse switching gives a
// pairing P in the class with one loop more, from which the loop switching
// with loop {a1, a2}, a1 going to p = mate(a1), and r = mate(a2), is valid
// and gives P'. It returns the counts by s1 = (a1, a2): b(P') split as the
// incremental relaxation splits it.
func bruteLoopInverses(s *switchSampler, sp *slowPairing) map[[2]uint32]int64 {
	l, m, _ := sp.load(s.mate)
	d32 := uint32(sp.d)
	vert := func(p uint32) uint32 { return p / d32 }
	P := slices.Clone(s.mate)
	out := map[[2]uint32]int64{}
	for a1 := range uint32(len(P)) {
		for a2 := vert(a1) * d32; a2 < vert(a1)*d32+d32; a2++ {
			for q := range uint32(len(P)) {
				p, r, t := s.mate[a1], s.mate[a2], s.mate[q]
				if !distinct(a1, a2, p, r, q, t) {
					continue
				}
				copy(P, s.mate)
				P[a1], P[a2] = a2, a1
				P[p], P[q] = q, p
				P[r], P[t] = t, r
				if ll, mm, ok := sp.load(P); !ok || ll != l+1 || mm != m {
					continue
				}
				v1, v2, v4, v3, v5 := vert(a1), vert(p), vert(q), vert(r), vert(t)
				if distinct(v1, v2, v3, v4, v5) && sp.single(P, p) && sp.single(P, r) &&
					!sp.adjacent(v1, v2) && !sp.adjacent(v1, v3) && !sp.adjacent(v4, v5) {
					out[[2]uint32{a1, a2}]++
				}
			}
		}
	}
	sp.load(s.mate)
	return out
}

// bruteDoubleInverses is bruteLoopInverses for a double switching: the
// structures (a1, a2, b1, b2) whose inverse gives a pairing P with one
// double pair more, {a1, b1} and {a2, b2}, from which the double switching
// with v1 = vert(a1), a1 first, p = mate(a1), r = mate(a2) is valid.
func bruteDoubleInverses(s *switchSampler, sp *slowPairing) map[[2]uint32]int64 {
	l, m, _ := sp.load(s.mate)
	d32 := uint32(sp.d)
	vert := func(p uint32) uint32 { return p / d32 }
	P := slices.Clone(s.mate)
	out := map[[2]uint32]int64{}
	for a1 := range uint32(len(P)) {
		for a2 := vert(a1) * d32; a2 < vert(a1)*d32+d32; a2++ {
			for b1 := range uint32(len(P)) {
				for b2 := vert(b1) * d32; b2 < vert(b1)*d32+d32; b2++ {
					p, r, q, t := s.mate[a1], s.mate[a2], s.mate[b1], s.mate[b2]
					if !distinct(a1, a2, b1, b2, p, r, q, t) {
						continue
					}
					copy(P, s.mate)
					P[a1], P[b1] = b1, a1
					P[a2], P[b2] = b2, a2
					P[p], P[q] = q, p
					P[r], P[t] = t, r
					if ll, mm, ok := sp.load(P); !ok || ll != l || mm != m+1 {
						continue
					}
					v1, v2, v3, v5, v4, v6 := vert(a1), vert(b1), vert(p), vert(q), vert(r), vert(t)
					if sp.mult[int(v1)*sp.n+int(v2)] == 2 && vert(a2) == v1 && vert(b2) == v2 &&
						distinct(v1, v2, v3, v4, v5, v6) && sp.single(P, p) && sp.single(P, r) &&
						!sp.adjacent(v1, v3) && !sp.adjacent(v1, v4) && !sp.adjacent(v2, v5) && !sp.adjacent(v2, v6) {
						out[[2]uint32{a1, a2}]++
					}
				}
			}
		}
	}
	sp.load(s.mate)
	return out
}

// TestSwitchingCountsMatchBruteForce checks what makes the switching sampler
// exact, against brute force on pairings it reaches. After each switching,
// to P' in class C(l, m):
//
//   - its bookkeeping (loops, double pairs, defects, |T|) matches a slow
//     classification;
//   - b(P'), the number of (P, switching) that lead to P', counted by
//     enumerating every inverse structure, splits by s1 = (a1, a2) exactly as
//     incremental relaxation assumes: s1 outside T has no completion, and s1
//     in T has |A2(s1)| completions (loopCompletions, or |T| − doubleBad);
//   - the bounds hold: lb1 ≤ |T| and lb2 ≤ |A2(s1)| for every s1 in T.
//
// Then the acceptance summed over the structures of every P' is lb1·lb2,
// and with f-rejection (1/f̄ per valid switching, f̄ fixed in a class) the
// switched pairing is uniform in its class. On the f-side, before each loop
// switching loopValid is compared with the definition for every choice,
// and before the first double switchings the rate at which doubleSwitch
// passes f-rejection is compared with the valid choices over f̄
// (checkDoubleRate). n = 12 has loop switchings only: the double
// switching's bounds are not positive there.
func TestSwitchingCountsMatchBruteForce(t *testing.T) {
	cases := []struct {
		n, d   uint64
		states int // switchings of each kind checked
	}{
		{12, 3, 20},
		{16, 3, 20},
		{20, 3, 10},
		{20, 4, 5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d,d=%d", c.n, c.d), func(t *testing.T) {
			states := c.states
			if !testing.Short() {
				states *= 10
			}
			rng := kernels.NewPCG32(c.n*c.d, 17)
			s := newSwitchSampler(c.n, c.d, &rng)
			sp := newSlowPairing(int(c.n), int(c.d))
			var loopsDone, doublesDone, pairings int
			for loopsDone < states || (doublesDone < states && c.n >= 16) {
				if pairings++; pairings > 100000 {
					t.Fatalf("%d pairings gave %d loop and %d double switchings", pairings, loopsDone, doublesDone)
				}
				shufflePairing(s.pts, s.rng)
				for k := 0; k < len(s.pts); k += 2 {
					s.pair(s.pts[k], s.pts[k+1])
				}
				if !s.classify() {
					continue
				}
				checkSamplerState(t, s, sp)
				l, m := int64(len(s.loops)), int64(len(s.doubles))
				if l > 0 && (s.b.lb1(l-1, m) < 1 || s.b.lb2Loop(l-1, m) < 1) ||
					m > 0 && (s.b.lb1(0, m-1) < 1 || s.b.lb2Double(m-1) < 1) {
					continue
				}
				for len(s.loops) > 0 {
					if loopsDone < states {
						checkLoopValid(t, s, sp)
					}
					switchUntil(t, s, len(s.loops), func() int { s.loopSwitch(); return len(s.loops) })
					checkSamplerState(t, s, sp)
					if loopsDone < states {
						checkInverseCounts(t, s, sp, "loop", bruteLoopInverses(s, sp), func(a1, a2 uint32) int64 {
							return s.loopCompletions(a1, a2)
						}, s.b.lb1(int64(len(s.loops)), int64(len(s.doubles))), s.b.lb2Loop(int64(len(s.loops)), int64(len(s.doubles))))
						loopsDone++
					}
				}
				for len(s.doubles) > 0 {
					if doublesDone < 2 {
						checkDoubleRate(t, s, sp, 20000)
					}
					switchUntil(t, s, len(s.doubles), func() int { s.doubleSwitch(); return len(s.doubles) })
					checkSamplerState(t, s, sp)
					if doublesDone < states {
						m := int64(len(s.doubles))
						checkInverseCounts(t, s, sp, "double", bruteDoubleInverses(s, sp), func(a1, a2 uint32) int64 {
							return s.tsum - s.doubleBad(s.vert(a1), s.vert(s.partner(a1)), s.vert(s.partner(a2)))
						}, s.b.lb1(0, m), s.b.lb2Double(m))
						doublesDone++
					}
				}
			}
			t.Logf("%d pairings, %d loop and %d double switchings checked", pairings, loopsDone, doublesDone)
		})
	}
}

// switchUntil calls step until the defects it counts drop below was (the
// switching was made; it may then have been b-rejected, which leaves the
// switched pairing to check).
func switchUntil(t *testing.T, s *switchSampler, was int, step func() int) {
	t.Helper()
	for range 1 << 20 {
		if step() < was {
			return
		}
	}
	t.Fatal("no switching accepted by f-rejection in 2^20 tries")
}

// checkInverseCounts compares the brute-force inverse structures by s1 with
// the sampler's T and completion counts, and checks the bounds.
func checkInverseCounts(t *testing.T, s *switchSampler, sp *slowPairing, kind string, brute map[[2]uint32]int64, completions func(a1, a2 uint32) int64, lb1, lb2 int64) {
	t.Helper()
	var inT int64
	for a1 := range uint32(s.m) {
		v1 := s.vert(a1)
		for a2 := v1 * s.d32; a2 < v1*s.d32+s.d32; a2++ {
			if a2 == a1 {
				continue
			}
			want := int64(0)
			if sp.mult[int(v1)*sp.n+int(v1)] == 0 && sp.single(s.mate, a1) && sp.single(s.mate, a2) {
				inT++
				want = completions(a1, a2)
				if want < lb2 {
					t.Fatalf("%s: s1 = (%d, %d) has %d completions, below lb2 = %d", kind, a1, a2, want, lb2)
				}
			}
			if got := brute[[2]uint32{a1, a2}]; got != want {
				t.Fatalf("%s: s1 = (%d, %d) at vertex %d: %d inverse structures by brute force, the sampler counts %d (in T: %v)", kind, a1, a2, v1, got, want, want != 0)
			}
		}
	}
	if inT != s.tsum || lb1 > inT {
		t.Fatalf("%s: |T| = %d by brute force, the sampler says %d, lb1 = %d", kind, inT, s.tsum, lb1)
	}
}

// checkLoopValid compares loopValid with the loop switching's definition for
// every loop, orientation and pair of points.
func checkLoopValid(t *testing.T, s *switchSampler, sp *slowPairing) {
	t.Helper()
	sp.load(s.mate)
	for _, v1 := range s.loops {
		for a1 := v1 * s.d32; a1 < v1*s.d32+s.d32; a1++ {
			if s.vert(s.mate[a1]) != v1 {
				continue
			}
			for p := range uint32(s.m) {
				for r := range uint32(s.m) {
					q, u := s.mate[p], s.mate[r]
					v2, v4, v3, v5 := s.vert(p), s.vert(q), s.vert(r), s.vert(u)
					want := distinct(v1, v2, v3, v4, v5) && sp.single(s.mate, p) && sp.single(s.mate, r) &&
						!sp.adjacent(v1, v2) && !sp.adjacent(v1, v3) && !sp.adjacent(v4, v5)
					if got := s.loopValid(a1, p, r); got != want {
						t.Fatalf("loopValid(%d, %d, %d) = %v, want %v", a1, p, r, got, want)
					}
				}
			}
		}
	}
}

// checkDoubleRate checks the f-side of the double switching, whose validity
// test is inline: from the sampler's pairing, in C(0, m), a double switching
// is made with probability V/f̄, f̄ = 4·m·M² and V the choices (double pair,
// which end is v1, which pair first, p, r) that are valid by the definition.
// doubleSwitch runs trials times from the same pairing, restored each time,
// and the fraction made must be within 4.5 standard errors of V/f̄.
func checkDoubleRate(t *testing.T, s *switchSampler, sp *slowPairing, trials int) {
	t.Helper()
	sp.load(s.mate)
	var valid int64
	for _, uw := range s.doubles {
		for _, v := range [][2]uint32{uw, {uw[1], uw[0]}} {
			v1, v2 := v[0], v[1]
			for p := range uint32(s.m) {
				for r := range uint32(s.m) {
					v3, v5, v4, v6 := s.vert(p), s.vert(s.mate[p]), s.vert(r), s.vert(s.mate[r])
					if distinct(v1, v2, v3, v4, v5, v6) && sp.single(s.mate, p) && sp.single(s.mate, r) &&
						!sp.adjacent(v1, v3) && !sp.adjacent(v1, v4) && !sp.adjacent(v2, v5) && !sp.adjacent(v2, v6) {
						valid += 2 // either pair of the double first
					}
				}
			}
		}
	}
	f := float64(valid) / float64(4*int64(len(s.doubles))*int64(s.m*s.m))
	mate, defects, doubles, tsum := slices.Clone(s.mate), slices.Clone(s.defects), slices.Clone(s.doubles), s.tsum
	made := 0
	for range trials {
		s.doubleSwitch()
		if len(s.doubles) < len(doubles) {
			made++
			copy(s.mate, mate)
			copy(s.defects, defects)
			s.doubles = append(s.doubles[:0], doubles...)
			s.tsum = tsum
		}
	}
	se := math.Sqrt(f * (1 - f) / float64(trials))
	if got := float64(made) / float64(trials); math.Abs(got-f) > 4.5*se {
		t.Fatalf("double switchings made in %.4f of %d tries, want %.4f ± %.4f (%d valid choices)", got, trials, f, se, valid)
	}
}

// simplifyOnly is a biased sampler: the pairing model with its loops and
// repeated edges switched away at random (drawChain without its chain).
func simplifyOnly(n, d uint64, rng *kernels.PCG32) []uint32 {
	m := n * d
	c := chain{d32: uint32(d), rng: rng, pts: identityPoints(m), nbv: make([]uint32, m)}
	for {
		shufflePairing(c.pts, rng)
		if c.simplify() {
			return pointsToVertices(c.pts, d)
		}
	}
}

// shortChain is a biased sampler: the switch chain run for only steps steps
// from the Möbius ladder (the cycle plus its n/2 diameters, cubic, no
// triangles, n 4-cycles).
func shortChain(n uint64, steps uint64, rng *kernels.PCG32) []uint32 {
	const d = 3
	c := chain{d32: d, rng: rng, nbv: make([]uint32, n*d)}
	next := make([]uint32, n) // points of each vertex used so far
	add := func(u, w uint32) {
		c.pts = append(c.pts, u*d+next[u], w*d+next[w])
		next[u]++
		next[w]++
	}
	for v := range uint32(n) {
		add(v, (v+1)%uint32(n))
	}
	for v := range uint32(n) / 2 {
		add(v, v+uint32(n)/2)
	}
	if !c.simplify() { // sets nbv; the ladder is simple, so no switch
		panic("the Möbius ladder is simple")
	}
	c.run(steps)
	return pointsToVertices(c.pts, d)
}

// TestUniformityTestsHavePower runs the uniformity tests above, at the same
// sizes, on samplers known to be biased, and wants them rejected: the
// enumerated χ² against the pairing model with its defects switched away at
// random, and the two-sample cycle-count χ² against a switch chain stopped
// after |E|/3 steps from a fixed graph.
func TestUniformityTestsHavePower(t *testing.T) {
	rng := kernels.NewPCG32(99, 1)
	for _, c := range []struct{ n, d, perCell int }{{6, 2, 100}, {8, 3, 20}} {
		keys := regularKeys(c.n, c.d)
		law := make(map[uint64]float64, len(keys))
		for _, k := range keys {
			law[k] = 1 / float64(len(keys))
		}
		idx := pairIndex(c.n)
		trials := c.perCell * len(keys)
		obs := make(map[uint64]int, len(keys))
		for range trials {
			g := NewExplicit("", uint64(c.n), simplifyOnly(uint64(c.n), uint64(c.d), &rng), "")
			obs[graphKey(g, idx)]++
		}
		stat, limit, df := stattest.Law(law, obs, trials)
		t.Logf("simplify only, n = %d, d = %d: χ² = %.1f on %d df (limit %.1f)", c.n, c.d, stat, df, limit)
		if stat <= limit {
			t.Errorf("simplify only, n = %d, d = %d: χ² = %.1f ≤ %.1f: the enumerated test missed a biased sampler", c.n, c.d, stat, limit)
		}
	}

	const n, trials = 20, 20000
	a := cycleLaw(t, n, 3, trials, func() []uint32 { return shortChain(n, n*3/2/3, &rng) })
	b := cycleLaw(t, n, 3, trials, rejectionDraws(t, n, 3, &rng))
	stat, limit, df := stattest.TwoSample(a, b)
	t.Logf("short chain, n = %d: χ² = %.1f on %d df (limit %.1f)", n, stat, df, limit)
	if stat <= limit {
		t.Errorf("short chain: χ² = %.1f ≤ %.1f: the two-sample test missed a biased sampler", stat, limit)
	}
}

// checkLexicographic fails t unless g's edges are pairs u < v < n in strictly
// increasing lexicographic order (so also distinct).
func checkLexicographic(t *testing.T, g *Graph, n uint64) {
	t.Helper()
	if g.N != n || uint64(len(g.Edges)) != 2*g.E {
		t.Fatalf("n = %d, E = %d, %d endpoints; want n = %d", g.N, g.E, len(g.Edges), n)
	}
	for e := range g.E {
		u, v := g.Edge(e)
		if u >= v || v >= n {
			t.Fatalf("edge %d = {%d, %d}: want u < v < %d", e, u, v, n)
		}
		if e > 0 {
			pu, pv := g.Edge(e - 1)
			if pu > u || (pu == u && pv >= v) {
				t.Fatalf("edge %d = {%d, %d} after {%d, %d}: not increasing", e, u, v, pu, pv)
			}
		}
	}
}

// TestErdosRenyiEdgeCount checks the edges are distinct pairs u < v in
// lexicographic order and their number is within 4.5 standard errors of
// p·n(n−1)/2 (binomial variance), from sparse to dense, and with n large
// enough that the skips cross many rows.
func TestErdosRenyiEdgeCount(t *testing.T) {
	cases := []struct {
		n    uint64
		p    float64
		long bool
	}{
		{50, 0.3, false},
		{1000, 0.5, false},
		{1000, 0.99, false},
		{2000, 0.01, false},
		{100000, 1e-4, false},
		{1 << 20, 1e-9, false},
		{1 << 20, 1e-6, true},
	}
	for _, c := range cases {
		if c.long && testing.Short() {
			continue
		}
		for seed := range uint64(3) {
			rng := kernels.NewPCG32(seed, 3)
			g, err := ErdosRenyi("erdos-renyi:x", c.n, c.p, &rng)
			if err != nil {
				t.Fatalf("n = %d, p = %v: %v", c.n, c.p, err)
			}
			checkLexicographic(t, g, c.n)
			pairs := float64(c.n * (c.n - 1) / 2)
			mean, se := c.p*pairs, math.Sqrt(pairs*c.p*(1-c.p))
			if math.Abs(float64(g.E)-mean) > 4.5*se {
				t.Errorf("n = %d, p = %v, seed %d: %d edges, want %.1f ± %.1f", c.n, c.p, seed, g.E, mean, se)
			}
		}
	}
}

// TestErdosRenyiLaw tests the whole law of G(n, p) on n = 5 (1024 graphs,
// each with probability p^E (1−p)^(10−E)) by χ² at 1e-4; a draw with no
// edge is an error by design and counts as the empty graph.
func TestErdosRenyiLaw(t *testing.T) {
	const n, p, trials = 5, 0.3, 50000
	idx := pairIndex(n)
	law := map[uint64]float64{}
	for key := range uint64(1 << 10) {
		k := bits.OnesCount64(key)
		law[key] = math.Pow(p, float64(k)) * math.Pow(1-p, float64(10-k))
	}
	obs := map[uint64]int{}
	rng := kernels.NewPCG32(5, 30)
	for range trials {
		g, err := ErdosRenyi("erdos-renyi:x", n, p, &rng)
		if err != nil {
			if !strings.Contains(err.Error(), "drew no edges") {
				t.Fatal(err)
			}
			obs[0]++
			continue
		}
		checkLexicographic(t, g, n)
		obs[graphKey(g, idx)]++
	}
	stat, limit, df := stattest.Law(law, obs, trials)
	t.Logf("%d draws: χ² = %.1f on %d df (limit %.1f at 1e-4)", trials, stat, df, limit)
	if stat > limit {
		t.Errorf("G(5, 0.3) law: χ² = %.1f > %.1f on %d df", stat, limit, df)
	}
}

// TestErdosRenyiPairFrequency counts how often each pair of n = 60 vertices
// is an edge. The counts are independent Binomial(trials, p), so Σ z² over
// the 1770 pairs is about χ² on 1770 df; and a few pairs (first, last, row
// ends) must each be within 4.5 standard errors of p.
func TestErdosRenyiPairFrequency(t *testing.T) {
	const n, p, trials = 60, 0.05, 20000
	count := make(map[[2]uint64]int)
	rng := kernels.NewPCG32(60, 5)
	for range trials {
		g, err := ErdosRenyi("erdos-renyi:x", n, p, &rng)
		if err != nil {
			t.Fatal(err)
		}
		for e := range g.E {
			u, v := g.Edge(e)
			count[[2]uint64{u, v}]++
		}
	}
	mean, sd := trials*p, math.Sqrt(trials*p*(1-p))
	var stat float64
	for u := range uint64(n) {
		for v := u + 1; v < n; v++ {
			z := (float64(count[[2]uint64{u, v}]) - mean) / sd
			stat += z * z
		}
	}
	if len(count) > n*(n-1)/2 {
		t.Fatalf("%d distinct pairs drawn, more than the %d pairs u < v", len(count), n*(n-1)/2)
	}
	const df = n * (n - 1) / 2
	limit := distuv.ChiSquared{K: df}.Quantile(1 - 1e-4)
	t.Logf("Σ z² = %.1f on %d pairs (limit %.1f at 1e-4)", stat, df, limit)
	if stat > limit {
		t.Errorf("pair frequencies: Σ z² = %.1f > %.1f", stat, limit)
	}
	for _, uv := range [][2]uint64{{0, 1}, {0, 59}, {1, 2}, {30, 31}, {58, 59}, {17, 42}} {
		if c := float64(count[uv]); math.Abs(c-mean) > 4.5*sd {
			t.Errorf("pair %v: an edge in %v of %d draws, want %.0f ± %.1f", uv, c, trials, mean, sd)
		}
	}
}

func TestErdosRenyiEdgeCases(t *testing.T) {
	rng := kernels.NewPCG32(1, 2)
	for _, n := range []uint64{2, 3, 7} {
		g, err := ErdosRenyi("erdos-renyi:x", n, 1, &rng)
		if err != nil {
			t.Fatalf("n = %d, p = 1: %v", n, err)
		}
		checkLexicographic(t, g, n)
		if g.E != n*(n-1)/2 {
			t.Errorf("n = %d, p = 1: %d edges, want all %d", n, g.E, n*(n-1)/2)
		}
	}
	errs := []struct {
		n    uint64
		p    float64
		want string
	}{
		{10, 0, "drew no edges"},
		{1, 0.5, "drew no edges"},
		{0, 0.5, "drew no edges"},
		{1, 1, "drew no edges"},
		{10, -0.1, "want a probability in [0, 1]"},
		{10, 1.5, "want a probability in [0, 1]"},
		{10, math.NaN(), "want a probability in [0, 1]"},
		{MaxVertices + 1, 0.5, "n ≤"},
		{100000, 1, "more than 2^31"},
		{MaxVertices, 1e-9, "more than 2^31"},
	}
	for _, c := range errs {
		g, err := ErdosRenyi("erdos-renyi:x", c.n, c.p, &rng)
		if err == nil {
			t.Errorf("n = %d, p = %v: no error, %d edges", c.n, c.p, g.E)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--graph erdos-renyi:x") {
			t.Errorf("n = %d, p = %v: error %q, want it to name the flag and say %q", c.n, c.p, err, c.want)
		}
	}
}

// TestRowOf checks rowStart and rowOf against brute force: for small n by
// walking every pair in lexicographic order, for large n (up to
// MaxVertices, where rowOf's square root is inexact) at row boundaries and
// random indices, with rowStart checked against big-integer arithmetic.
func TestRowOf(t *testing.T) {
	for n := uint64(2); n <= 70; n++ {
		i := uint64(0)
		for u := range n - 1 {
			if rowStart(u, n) != i {
				t.Fatalf("n = %d: rowStart(%d) = %d, want %d", n, u, rowStart(u, n), i)
			}
			for range n - 1 - u {
				if got := rowOf(i, n); got != u {
					t.Fatalf("n = %d: rowOf(%d) = %d, want %d", n, i, got, u)
				}
				i++
			}
		}
	}
	// bigStart is Σ_{k<u} (n−1−k) = u(2n−u−1)/2, exactly.
	bigStart := func(u, n uint64) *big.Int {
		x := new(big.Int).SetUint64(2*n - u - 1)
		x.Mul(x, new(big.Int).SetUint64(u))
		return x.Rsh(x, 1)
	}
	rng := kernels.NewPCG32(7, 7)
	for _, n := range []uint64{71, 1000, 1<<20 + 3, 1e9, 1<<32 - 2, MaxVertices} {
		us := []uint64{0, 1, 2, n / 3, n / 2, n - 3, n - 2}
		for range 200 {
			us = append(us, rng.Bounded64(n-1))
		}
		for _, u := range us {
			start := rowStart(u, n)
			if bigStart(u, n).Cmp(new(big.Int).SetUint64(start)) != 0 {
				t.Fatalf("n = %d: rowStart(%d) = %d, want %v", n, u, start, bigStart(u, n))
			}
			end := start + n - 1 - u // the next row's start
			for _, i := range []uint64{start, end - 1, start + rng.Bounded64(end-start)} {
				if got := rowOf(i, n); got != u {
					t.Fatalf("n = %d: rowOf(%d) = %d, want %d (row %d is [%d, %d))", n, i, got, u, u, start, end)
				}
			}
		}
	}
}

// TestGeneratorsReproducible: the same seed gives the same edge array, on
// every path, and another seed another graph.
func TestGeneratorsReproducible(t *testing.T) {
	draw := func(seed uint64, f func(rng *kernels.PCG32) (*Graph, error)) []uint32 {
		rng := kernels.NewPCG32(seed, 4)
		g, err := f(&rng)
		if err != nil {
			t.Fatal(err)
		}
		return g.Edges
	}
	gens := map[string]func(rng *kernels.PCG32) (*Graph, error){}
	for _, nd := range [][2]uint64{{6, 3}, {50, 46}, {1000, 2}, {1000, 3}, {30, 10}} {
		gens[fmt.Sprintf("random-regular:%d,%d", nd[0], nd[1])] = func(rng *kernels.PCG32) (*Graph, error) {
			return RandomRegular("x", nd[0], nd[1], rng)
		}
	}
	gens["erdos-renyi:1000,0.01"] = func(rng *kernels.PCG32) (*Graph, error) { return ErdosRenyi("x", 1000, 0.01, rng) }
	for name, f := range gens {
		a, b, c := draw(1, f), draw(1, f), draw(2, f)
		if !slices.Equal(a, b) {
			t.Errorf("%s: seed 1 twice gave different edge arrays", name)
		}
		if slices.Equal(a, c) {
			t.Errorf("%s: seeds 1 and 2 gave the same edge array", name)
		}
	}
}
