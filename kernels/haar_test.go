package kernels_test

// kernels_test, not kernels: these tests need core/haar's plans, and
// core/haar imports kernels.

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/kernels"
)

func haarPlan(tb testing.TB, spec string, opt haar.Options) *haar.Plan {
	tb.Helper()
	g, err := graph.Parse(spec, graph.Options{Seed: 11})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := haar.Build(g, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// haarRef is the slow, obvious haar loop: PCG32 methods one draw at a time,
// set averages recomputed from the loads (or from a copy of them taken at
// the last refresh) by summing over each set, compared as big rationals.
type haarRef struct {
	plan        *haar.Plan
	loads, snap []uint64
	stale       uint64
	since       uint64
	word, left  uint32
}

func newHaarRef(p *haar.Plan, loads []uint64, stale uint64) *haarRef {
	return &haarRef{plan: p, loads: slices.Clone(loads), snap: slices.Clone(loads), stale: stale}
}

func (h *haarRef) average(view []uint64, code uint32) *big.Rat {
	set := h.plan.Set(code)
	sum := new(big.Int)
	for _, v := range set {
		sum.Add(sum, new(big.Int).SetUint64(view[v]))
	}
	return new(big.Rat).SetFrac(sum, big.NewInt(int64(len(set))))
}

func (h *haarRef) throw(r *kernels.PCG32, count uint64, maxLoad uint64) uint64 {
	t := &h.plan.Tables
	for range count {
		e := r.Bounded(uint32(len(t.Edges)))
		ed := t.Edges[e]
		keep, own, alias := t.Column(e, r.Bounded(ed.Len))
		a := alias
		if r.Uint32() < keep {
			a = own
		}
		if h.left == 0 {
			h.word, h.left = r.Uint32(), 32
		}
		heads := h.word&1 == 1
		h.word >>= 1
		h.left--
		view := h.loads
		if h.stale > 1 {
			view = h.snap
		}
		toY := heads // ∅
		if a != 0 {
			switch h.average(view, a).Cmp(h.average(view, a^1)) {
			case 1:
				toY = true
			case -1:
				toY = false
			}
		}
		pick := ed.X
		if toY {
			pick = ed.Y
		}
		h.loads[pick]++
		maxLoad = max(maxLoad, h.loads[pick])
		if h.stale > 1 {
			if h.since++; h.since == h.stale {
				copy(h.snap, h.loads)
				h.since = 0
			}
		}
	}
	return maxLoad
}

// slowSums is the total load of every set of the plan, by summing over it.
func slowSums[L kernels.Load](p *haar.Plan, loads []L) []uint64 {
	s := make([]uint64, len(p.Tables.Size))
	for h := 1; h < len(s); h++ {
		for _, v := range p.Set(uint32(h)) {
			s[h] += uint64(loads[v])
		}
	}
	return s
}

func startLoads(n uint64) []uint64 {
	loads := make([]uint64, n)
	for v := range loads {
		loads[v] = uint64(v*v+5*v) % 4
	}
	return loads
}

// bigLoads is a start whose total is total (spread evenly, the remainder on
// vertex 0): near 2^32 it puts the subtree sums at the edge of their 32-bit
// width.
func bigLoads(n, total uint64) []uint64 {
	loads := make([]uint64, n)
	for v := range loads {
		loads[v] = total / n
	}
	loads[0] += total % n
	return loads
}

var haarSpecs = []struct {
	spec  string
	route haar.Route
}{
	{"cycle:64", haar.RouteSet}, {"torus:6,5", haar.RouteSet}, {"random-regular:100,3", haar.RouteSet},
	{"hypercube:5", haar.RouteSet}, {"complete:9", haar.RouteSet}, {"path:33", haar.RouteSet},
	// Routed in all of G: edges hold nodes far from both endpoints, and
	// codes deeper than an endpoint's leaf (HaarEscape).
	{"complete:40", haar.RouteGraph}, {"random-regular:100,3", haar.RouteGraph},
}

// TestHaarMatchesReference runs the fast loop (both load widths, fresh and
// stale, each staleness refresh method, in uneven chunks) beside the
// reference from the same stream and start, ball for ball: loads, maximum,
// the generator afterwards, and the subtree sums against a slow
// recomputation from the loads of the last refresh. Two more starts put
// the total load just below 2^32, so that the sums widen to 64 bits in the
// middle of the run, and above it, so that they start wide.
func TestHaarMatchesReference(t *testing.T) {
	for _, c := range haarSpecs {
		p := haarPlan(t, c.spec, haar.Options{Seed: 2, Route: c.route})
		spec := fmt.Sprintf("%s route %d (%d escaped columns)", c.spec, c.route, len(p.Tables.Wide))
		t.Log(spec)
		start := startLoads(p.N)
		for _, stale := range []uint64{0, 1, 7, 64, 3001} {
			for _, refresh := range []string{"auto", "rebuild", "replay"} {
				if stale <= 1 && refresh != "auto" {
					continue
				}
				testHaarAgainstRef[uint32](t, p, spec, start, stale, refresh)
				testHaarAgainstRef[uint64](t, p, spec, start, stale, refresh)
			}
		}
		for _, total := range []uint64{1<<32 - 3000, 1<<32 + 5} {
			for _, stale := range []uint64{0, 64} {
				testHaarAgainstRef[uint32](t, p, spec, bigLoads(p.N, total), stale, "auto")
			}
		}
	}
}

// TestHaarFieldRoundTrip codes every child code of a small heap against
// leaves of several depths (the shallowest and deepest included): decoding
// gives the code back, and the codes that must fit in 16 bits (∅, and the
// children of X's ancestors, the common case) do.
func TestHaarFieldRoundTrip(t *testing.T) {
	for _, lx := range []uint32{1, 2, 3, 5, 0x2f, 0x4ff, 0x1_0000, 0x3_abcd, 1<<31 | 12345, math.MaxUint32} {
		codes := []uint32{math.MaxUint32, 1 << 31, lx, lx ^ 1}
		for a := range uint32(1 << 12) {
			codes = append(codes, a)
		}
		for k := range 32 {
			codes = append(codes, lx>>k, lx>>k^1, lx>>k^5, lx>>k^0x3ff)
		}
		for _, a := range codes {
			f := kernels.HaarField(lx, a)
			if f == kernels.HaarEscape {
				// ∅ and the children of X's ancestors (i holds X) must fit.
				da, dl := bits.Len32(a), bits.Len32(lx)
				if a == 0 || a > 1 && da <= dl && lx>>(dl-da+1) == a>>1 {
					t.Fatalf("leaf %#x, code %#x: escaped", lx, a)
				}
				continue
			}
			tb := kernels.HaarTables{Edges: []kernels.HaarEdge{{Len: 1}}, Slots: []kernels.HaarSlot{{Own: f, Alias: f}}, Leaf: []uint32{lx}}
			if _, own, alias := tb.Column(0, 0); own != a || alias != a {
				t.Fatalf("leaf %#x, code %#x: field %#x decodes to %#x", lx, a, f, own)
			}
		}
	}
}

// TestHaarWideColumns runs the loop on a plan's tables and on a copy whose
// every column field is HaarEscape, all codes in Wide (the rare path for
// rerouted nodes far from both endpoints): same stream, same balls.
func TestHaarWideColumns(t *testing.T) {
	for _, spec := range []string{"random-regular:100,3", "torus:6,5"} {
		p := haarPlan(t, spec, haar.Options{Seed: 2})
		wide := p.Tables
		wide.Slots = make([]kernels.HaarSlot, len(p.Tables.Slots))
		wide.Wide = nil
		for e, ed := range p.Tables.Edges {
			for j := range ed.Len {
				keep, own, alias := p.Tables.Column(uint32(e), j)
				wide.Slots[ed.Off+j] = kernels.HaarSlot{Keep: keep, Own: kernels.HaarEscape, Alias: kernels.HaarEscape}
				wide.Wide = append(wide.Wide, kernels.HaarWide{Slot: ed.Off + j, Own: own, Alias: alias})
			}
		}
		start := startLoads(p.N)
		l1, l2 := slices.Clone(start), slices.Clone(start)
		st1, st2 := kernels.NewHaarState(&p.Tables, l1, 0), kernels.NewHaarState(&wide, l2, 0)
		r1 := kernels.TrialStream(9, 0, kernels.LaneChoices)
		r2 := r1
		m1 := kernels.Haar(l1, &r1, 5000, &p.Tables, &st1, 0)
		m2 := kernels.Haar(l2, &r2, 5000, &wide, &st2, 0)
		if !slices.Equal(l1, l2) || m1 != m2 || r1.Uint32() != r2.Uint32() {
			t.Fatalf("%s: escaped columns give other balls", spec)
		}
	}
}

// TestHaarExactColumnDraw puts a zero output, which leaves Lemire's fast
// path (and is rejected unless the bound is a power of two), at each of the
// first stream positions in turn: where it falls on a column draw the loop
// must end its batch there and redraw the ball exactly.
func TestHaarExactColumnDraw(t *testing.T) {
	for _, spec := range []string{"torus:6,5", "random-regular:100,3"} {
		p := haarPlan(t, spec, haar.Options{Seed: 2})
		start := startLoads(p.N)
		base := kernels.TrialStream(9, 0, kernels.LaneChoices)
		enc, _ := base.MarshalBinary()
		// State 1 outputs 0: its xorshifted bits 27–58 and rotation are 0.
		enc[len(enc)-16+7] = 1
		for i := len(enc) - 16; i < len(enc)-9; i++ {
			enc[i] = 0
		}
		for d := range uint64(150) {
			var r1 kernels.PCG32
			if err := r1.UnmarshalBinary(enc); err != nil {
				t.Fatal(err)
			}
			r1.Advance(-d)
			r2 := r1
			loads := slices.Clone(start)
			st := kernels.NewHaarState(&p.Tables, loads, 0)
			ref := newHaarRef(p, start, 0)
			m1 := kernels.Haar(loads, &r1, 100, &p.Tables, &st, 0)
			m2 := ref.throw(&r2, 100, 0)
			if !slices.Equal(loads, ref.loads) || m1 != m2 || r1.Uint32() != r2.Uint32() {
				t.Fatalf("%s: zero output at position %d: the loop and the reference differ", spec, d)
			}
		}
	}
}

func testHaarAgainstRef[L kernels.Load](t *testing.T, p *haar.Plan, spec string, start []uint64, stale uint64, refresh string) {
	loads := make([]L, p.N)
	for v, l := range start {
		loads[v] = L(l)
	}
	st := kernels.NewHaarState(&p.Tables, loads, stale)
	switch refresh {
	case "rebuild":
		st.Pending = nil
	case "replay":
		st.Pending = make([]uint32, 0, stale)
	}
	ref := newHaarRef(p, start, stale)
	r1 := kernels.TrialStream(9, stale, kernels.LaneChoices)
	r2 := r1
	var m1 L
	var m2 uint64
	for _, chunk := range []uint64{1, 2, 999, 5, 3000, 64, 1937} {
		m1 = kernels.Haar(loads, &r1, chunk, &p.Tables, &st, m1)
		m2 = ref.throw(&r2, chunk, m2)
		for v := range loads {
			if uint64(loads[v]) != ref.loads[v] {
				t.Fatalf("%s stale %d %s: vertex %d: load %d, reference %d", spec, stale, refresh, v, loads[v], ref.loads[v])
			}
		}
		if uint64(m1) != m2 {
			t.Fatalf("%s stale %d %s: max %d, reference %d", spec, stale, refresh, m1, m2)
		}
		view := ref.loads
		if stale > 1 {
			view = ref.snap
		}
		if !slices.Equal(st.Sums(nil)[2:], slowSums(p, view)[2:]) { // 0 and 1 are scratch
			t.Fatalf("%s stale %d %s: subtree sums differ from the slow recomputation", spec, stale, refresh)
		}
	}
	if r1.Uint32() != r2.Uint32() {
		t.Fatalf("%s stale %d %s: streams diverged", spec, stale, refresh)
	}
}

// TestHaarSetAverages checks the O(1) read: Sums[h]/Size[h] is the average
// load of S_h for every set, after NewHaarState and after fresh updates.
func TestHaarSetAverages(t *testing.T) {
	p := haarPlan(t, "torus:7,9", haar.Options{})
	loads := startLoads(p.N)
	st := kernels.NewHaarState(&p.Tables, loads, 0)
	r := kernels.TrialStream(1, 0, kernels.LaneChoices)
	for round := range 3 {
		slow := slowSums(p, loads)
		sums := st.Sums(nil)
		for h := uint32(2); h < uint32(len(sums)); h++ {
			if size := p.Tables.Size[h]; size > 0 {
				fast := float64(sums[h]) / float64(size)
				want := float64(slow[h]) / float64(len(p.Set(h)))
				if fast != want {
					t.Fatalf("round %d: set %d: average %v, want %v", round, h, fast, want)
				}
			}
		}
		kernels.Haar(loads, &r, 1000, &p.Tables, &st, 0)
	}
}

// gapStats runs trials of m = ballsPerBin·n balls from empty bins and
// returns the mean of max − m/n and its standard error.
func gapStats(trials int, n, ballsPerBin uint64, throw func(loads []uint32, r *kernels.PCG32) uint32) (mean, se float64) {
	var s, s2 float64
	loads := make([]uint32, n)
	for trial := range trials {
		clear(loads)
		r := kernels.TrialStream(31, uint64(trial), kernels.LaneChoices)
		gap := float64(throw(loads, &r)) - float64(ballsPerBin)
		s += gap
		s2 += gap * gap
	}
	mean = s / float64(trials)
	v := (s2 - s*mean) / float64(trials-1)
	return mean, math.Sqrt(v / float64(trials))
}

func haarThrower(t *kernels.HaarTables, count uint64) func([]uint32, *kernels.PCG32) uint32 {
	return func(loads []uint32, r *kernels.PCG32) uint32 {
		st := kernels.NewHaarState(t, loads, 0)
		return kernels.Haar(loads, r, count, t, &st, 0)
	}
}

func greedyThrower(topo kernels.Topology, count uint64) func([]uint32, *kernels.PCG32) uint32 {
	return func(loads []uint32, r *kernels.PCG32) uint32 {
		var coins kernels.Coins
		return kernels.Graphical(loads, r, count, &topo, nil, &coins, 0)
	}
}

func topology(tb testing.TB, spec string) kernels.Topology {
	g, err := graph.Parse(spec, graph.Options{Seed: 11})
	if err != nil {
		tb.Fatal(err)
	}
	switch g.Family {
	case graph.Cycle:
		return kernels.Topology{Kind: kernels.TopoCycle, N: uint32(g.N), E: uint32(g.E)}
	case graph.Complete:
		return kernels.NewCompleteTopology(uint32(g.N))
	}
	eg, _ := g.Materialize()
	return kernels.Topology{Kind: kernels.TopoEdges, N: uint32(g.N), E: uint32(g.E), Edges: eg.Edges}
}

// randomEndpoint is the plan's graph with every edge's law all ∅: the ball
// goes to a uniform endpoint of a uniform edge (one choice), the baseline
// haar must beat. Same loop, same stream.
func randomEndpoint(p *haar.Plan) *kernels.HaarTables {
	t := &kernels.HaarTables{Leaf: p.Tables.Leaf, Size: p.Tables.Size,
		Slots: []kernels.HaarSlot{{Keep: math.MaxUint32}}}
	for _, ed := range p.Tables.Edges {
		t.Edges = append(t.Edges, kernels.HaarEdge{X: ed.X, Y: ed.Y, Len: 1})
	}
	return t
}

// zClear reports whether mean a is below mean b by more than 4 standard
// errors of the difference: a one-sided z-test at 4σ (level 3·10^-5), so a
// pass is no accident of the seeds.
func zClear(a, sa, b, sb float64) bool { return b-a > 4*math.Hypot(sa, sb) }

// TestHaarBeatsOneChoice: on cycle:256 with m = 100·n balls, 20 trials,
// haar's gap is clearly below that of a random endpoint of a random edge
// (measured: 17.3 ± 0.6 against 28.9 ± 1.1).
func TestHaarBeatsOneChoice(t *testing.T) {
	const bpb, trials = 100, 20
	p := haarPlan(t, "cycle:256", haar.Options{})
	oc := randomEndpoint(p)
	hm, hs := gapStats(trials, p.N, bpb, haarThrower(&p.Tables, bpb*p.N))
	om, os := gapStats(trials, p.N, bpb, haarThrower(oc, bpb*p.N))
	t.Logf("cycle:256, m = %d·n: haar gap %.2f ± %.2f, one choice %.2f ± %.2f", bpb, hm, hs, om, os)
	if !zClear(hm, hs, om, os) {
		t.Errorf("haar's gap %.2f ± %.2f is not clearly below one choice's %.2f ± %.2f", hm, hs, om, os)
	}
}

// TestHaarGapGrowsPolylogarithmically compares haar's mean gap on cycles of
// n = 2^8 and 2^12 (m = 100·n): the analysis (C = Θ(log n) per level, log n
// levels) predicts growth at most like log² n, a ratio of (12/8)² = 2.25;
// the test fails only if the measured ratio exceeds that by more than 4
// standard errors (delta method). Greedy's gaps are logged beside it: at
// these sizes and loads greedy's gap is the smaller (measured 6.95 ± 0.21
// and 9.40 ± 0.15 against haar's 17.2 ± 0.4 and 28.3 ± 0.9): m = 100·n is
// far from greedy's stationarity on a cycle, where its gap grows like √n
// (TestGreedyOutgrowsHaarOnCycleAtSaturation).
func TestHaarGapGrowsPolylogarithmically(t *testing.T) {
	const bpb = 100
	var mean, se [2]float64
	for i, c := range []struct {
		spec   string
		trials int
	}{{"cycle:256", 40}, {"cycle:4096", 20}} {
		p := haarPlan(t, c.spec, haar.Options{})
		mean[i], se[i] = gapStats(c.trials, p.N, bpb, haarThrower(&p.Tables, bpb*p.N))
		gm, gs := gapStats(c.trials, p.N, bpb, greedyThrower(topology(t, c.spec), bpb*p.N))
		t.Logf("%s, m = %d·n: haar gap %.2f ± %.2f (C = %.2f), greedy %.2f ± %.2f", c.spec, bpb, mean[i], se[i], p.C, gm, gs)
	}
	ratio := mean[1] / mean[0]
	rse := ratio * math.Hypot(se[0]/mean[0], se[1]/mean[1])
	if bound := 2.25; ratio-4*rse > bound {
		t.Errorf("haar's gap grew by %.2f ± %.2f from n = 2^8 to 2^12, beyond log² n's %.2f", ratio, rse, bound)
	}
}

// BenchmarkHaar measures the allocation loop at n = 2^16 beside greedy on
// the same graph in the same run, in balls per second, from a plan built
// once (not timed).
func BenchmarkHaar(b *testing.B) {
	for _, spec := range []string{"cycle:1024", "cycle:65536", "torus:256,256", "random-regular:65536,3"} {
		p := haarPlan(b, spec, haar.Options{})
		topo := topology(b, spec)
		const chunk = 1 << 20
		b.Run("haar/"+spec, func(b *testing.B) {
			loads := make([]uint32, p.N)
			st := kernels.NewHaarState(&p.Tables, loads, 0)
			r := kernels.TrialStream(1, 0, kernels.LaneChoices)
			var m uint32
			for b.Loop() {
				m = kernels.Haar(loads, &r, chunk, &p.Tables, &st, m)
			}
			b.ReportMetric(float64(chunk)*float64(b.N)/b.Elapsed().Seconds(), "balls/s")
		})
		b.Run("greedy/"+spec, func(b *testing.B) {
			loads := make([]uint32, p.N)
			r := kernels.TrialStream(1, 0, kernels.LaneChoices)
			var coins kernels.Coins
			var m uint32
			for b.Loop() {
				m = kernels.Graphical(loads, &r, chunk, &topo, nil, &coins, m)
			}
			b.ReportMetric(float64(chunk)*float64(b.N)/b.Elapsed().Seconds(), "balls/s")
		})
	}
}

// saturatedGap is the gap of one trial at stationarity: from empty bins,
// burn balls are thrown, then samples batches of every balls each, and the
// gap max − t/n after each batch is averaged. advance(count) throws count
// balls into loads.
func saturatedGap(loads []uint32, burn, every uint64, samples int, advance func(count uint64)) float64 {
	advance(burn)
	thrown := burn
	var s float64
	for range samples {
		advance(every)
		thrown += every
		s += float64(slices.Max(loads)) - float64(thrown)/float64(len(loads))
	}
	return s / float64(samples)
}

// TestGreedyOutgrowsHaarOnCycleAtSaturation checks the claim that on a
// cycle greedy's gap grows faster in n than haar's, checked where it is a
// claim about the process: at stationarity. Greedy on cycle:n is a
// one-dimensional surface grown by noise and local smoothing
// (Edwards–Wilkinson): its stationary load profile is a random-walk bridge
// of variance ≈ n/6 per bin, so its gap grows like √n, but the longest mode
// relaxes only after Θ(n³) balls (at n = 256 the variance levels off after
// about n³/8), which is why at m = 1000·n (bench/README.md's table) greedy still
// looks polylogarithmic. Haar's sibling difference at a node with children
// of k bins moves toward zero by λ_i/(C·n·k) per ball against noise of
// variance 2/(n·k), so it settles at O(C) after O(C²·n·k) balls: about 31·n² at the root (λ_i/C ≈ 0.13, see
// haar-info), and its gap is O(C log n) = O(log² n). Burn-in: n³/8 balls for
// greedy, 64·n² for haar; then the gap is averaged over 32 samples, n³/64
// and 4·n² balls apart. The test compares the growth n₁ → n₂ of the mean
// stationary gap: log(greedy's ratio) − log(haar's ratio) must exceed 4
// standard errors (delta method over the four means). Measured (-short,
// n = 128 → 512): greedy 9.28 ± 0.20 → 19.63 ± 0.37 (×2.12), haar
// 20.65 ± 0.25 → 36.59 ± 0.39 (×1.77), z = 5.4; without -short (n = 128 →
// 1024): greedy 9.10 → 27.56 (×3.03), haar 20.66 → 45.82 (×2.22), z = 8.8.
// At these n haar's gap is still the larger; the stationary gaps cross
// between n = 2^13 and 2^14 (at 2^14 greedy 113, haar 93: bench/README.md,
// "Haar against greedy: gaps").
//
// Long suite only (at n = 128 → 512 it was 2·10^9 balls, the package's
// slowest test): -short keeps what would make haar grow like greedy, its
// drift, checked exactly end to end (TestHaarSiblingDifferencesMatchDriftBalance),
// and haar's polylogarithmic growth (TestHaarGapGrowsPolylogarithmically).
func TestGreedyOutgrowsHaarOnCycleAtSaturation(t *testing.T) {
	if testing.Short() {
		t.Skip("2·10^9 balls; the fast checks are TestHaarSiblingDifferencesMatchDriftBalance and TestHaarGapGrowsPolylogarithmically")
	}
	// Trials per (strategy, size), more where a trial is cheap or noisy.
	n1, n2 := uint64(128), uint64(1024)
	trials := [2][2]int{{32, 16}, {32, 12}} // [greedy, haar][n1, n2]
	const samples = 32
	type point struct{ mean, se float64 }
	measure := func(n uint64, haarOn bool, trials int) point {
		spec := "cycle:" + strconv.FormatUint(n, 10)
		var p *haar.Plan
		topo := topology(t, spec)
		burn, every := n*n*n/8, n*n*n/64
		if haarOn {
			p = haarPlan(t, spec, haar.Options{})
			burn, every = 64*n*n, 4*n*n
		}
		gaps := make([]float64, trials)
		var wg sync.WaitGroup
		for trial := range trials {
			wg.Go(func() {
				loads := make([]uint32, n)
				r := kernels.TrialStream(41, uint64(trial), kernels.LaneChoices)
				var advance func(uint64)
				if haarOn {
					st := kernels.NewHaarState(&p.Tables, loads, 0)
					advance = func(c uint64) { kernels.Haar(loads, &r, c, &p.Tables, &st, 0) }
				} else {
					var coins kernels.Coins
					advance = func(c uint64) { kernels.Graphical(loads, &r, c, &topo, nil, &coins, 0) }
				}
				gaps[trial] = saturatedGap(loads, burn, every, samples, advance)
			})
		}
		wg.Wait()
		mean, v := 0.0, 0.0
		for _, g := range gaps {
			mean += g / float64(trials)
		}
		for _, g := range gaps {
			v += (g - mean) * (g - mean) / float64(trials-1)
		}
		return point{mean, math.Sqrt(v / float64(trials))}
	}
	g1, g2 := measure(n1, false, trials[0][0]), measure(n2, false, trials[0][1])
	h1, h2 := measure(n1, true, trials[1][0]), measure(n2, true, trials[1][1])
	t.Logf("stationary gap on cycle:%d → cycle:%d: greedy %.2f ± %.2f → %.2f ± %.2f, haar %.2f ± %.2f → %.2f ± %.2f",
		n1, n2, g1.mean, g1.se, g2.mean, g2.se, h1.mean, h1.se, h2.mean, h2.se)
	diff := math.Log(g2.mean/g1.mean) - math.Log(h2.mean/h1.mean)
	var se float64
	for _, p := range []point{g1, g2, h1, h2} {
		se += (p.se / p.mean) * (p.se / p.mean)
	}
	se = math.Sqrt(se)
	t.Logf("log growth: greedy %.3f, haar %.3f, difference %.3f ± %.3f (z = %.1f)",
		math.Log(g2.mean/g1.mean), math.Log(h2.mean/h1.mean), diff, se, diff/se)
	if diff < 4*se {
		t.Errorf("greedy's stationary gap grew ×%.2f and haar's ×%.2f from n = %d to %d: not clearly faster (difference of logs %.3f ± %.3f)",
			g2.mean/g1.mean, h2.mean/h1.mean, n1, n2, diff, se)
	}
}

// TestHaarSiblingDifferencesMatchDriftBalance checks the drift each node
// applies, end to end (flows, λ_i, C, alias tables, loop), against its
// exact consequence. For a node whose children are single vertices u and
// u', D = L(u) − L(u') is a birth–death chain: away from 0 it steps toward
// 0 with probability a + ε and away with a − ε, a = 1/n and ε = w/(2|E|)
// for the node's drift w = λ_i/C (every other node's drift moves u and u'
// alike, or not at all); at 0, ±1 with a each (a tie is a fair coin).
// Detailed balance gives E|D| = a/(2ε) = |E|/(n·w) exactly
// (haar.Info.DifferenceScale). D relaxes in about τ = E|D|/(2ε) balls (the
// slowest pair's: 27·n on cycle:256, 1000·n on complete:64). The test
// averages |D| over every such pair and over 100 samples τ/2 apart, after
// 10τ, per trial, and requires the mean over trials to be within 4
// standard errors of the mean prediction over the pairs.
func TestHaarSiblingDifferencesMatchDriftBalance(t *testing.T) {
	const trials, samples = 8, 100
	for _, c := range []struct {
		spec  string
		route haar.Route
	}{
		{"cycle:256", haar.RouteSet}, {"torus:16,16", haar.RouteSet}, {"random-regular:256,3", haar.RouteSet},
		{"complete:64", haar.RouteSet}, {"complete:64", haar.RouteGraph}, {"random-regular:256,3", haar.RouteGraph},
	} {
		p := haarPlan(t, c.spec, haar.Options{Route: c.route})
		spec := fmt.Sprintf("%s route %d", c.spec, c.route)
		vertexAt := make([]uint32, len(p.Tables.Size))
		for v, h := range p.Tables.Leaf {
			vertexAt[h] = uint32(v)
		}
		type pair struct{ u, v uint32 }
		var pairs []pair
		var predicted, tau float64
		for _, nd := range p.Nodes {
			h := nd.Heap
			if p.Tables.Size[h] != 2 || p.Tables.Size[2*h] != 1 || p.Tables.Size[2*h+1] != 1 {
				continue
			}
			pairs = append(pairs, pair{vertexAt[2*h], vertexAt[2*h+1]})
			w := nd.Lambda / p.C
			predicted += p.Info.DifferenceScale(w)
			tau = max(tau, p.Info.DifferenceScale(w)*float64(p.Info.E)/w) // E|D|/(2ε), ε = w/(2|E|)
		}
		every := uint64(tau/2) + 1
		predicted /= float64(len(pairs))
		var s, s2 float64
		loads := make([]uint32, p.N)
		for trial := range trials {
			clear(loads)
			r := kernels.TrialStream(43, uint64(trial), kernels.LaneChoices)
			st := kernels.NewHaarState(&p.Tables, loads, 0)
			kernels.Haar(loads, &r, 20*every, &p.Tables, &st, 0)
			var sum float64
			for range samples {
				kernels.Haar(loads, &r, every, &p.Tables, &st, 0)
				for _, pr := range pairs {
					sum += math.Abs(float64(loads[pr.u]) - float64(loads[pr.v]))
				}
			}
			m := sum / float64(samples*len(pairs))
			s += m
			s2 += m * m
		}
		mean := s / trials
		se := math.Sqrt((s2 - s*mean) / (trials - 1) / trials)
		t.Logf("%s: %d sibling vertex pairs, E|D| %.3f ± %.3f, predicted |E|/(n·λ_i/C) = %.3f (z = %.1f)",
			spec, len(pairs), mean, se, predicted, (mean-predicted)/se)
		if math.Abs(mean-predicted) > 4*se {
			t.Errorf("%s: sibling vertex pairs differ by %.3f ± %.3f on average, the drift balance predicts %.3f",
				spec, mean, se, predicted)
		}
	}
}

// TestHaarRoutedInGraphBalancesCompleteGraph: on complete:n with flows
// inside G[S_i] two sibling vertices share one edge, so their difference
// settles at (n−1)/2 (TestHaarSiblingDifferencesMatchDriftBalance) and the
// stationary gap grows like n; routed in all of K_n the same pair has
// |S_l|·n two-hop paths and settles at about log₂ n. At n = 128 and
// m = n³ (past the set routing's relaxation, about n³/16 balls), 10 trials:
// the graph routing's gap must be clearly below the set routing's
// (measured: 17.2 ± 1.1 against 145 ± 10; greedy, logged, 1.9).
func TestHaarRoutedInGraphBalancesCompleteGraph(t *testing.T) {
	const n, trials = 128, 10
	const bpb = n * n
	set := haarPlan(t, "complete:128", haar.Options{})
	all := haarPlan(t, "complete:128", haar.Options{Route: haar.RouteGraph})
	sm, ss := gapStats(trials, n, bpb, haarThrower(&set.Tables, bpb*n))
	gm, gs := gapStats(trials, n, bpb, haarThrower(&all.Tables, bpb*n))
	em, es := gapStats(trials, n, bpb, greedyThrower(topology(t, "complete:128"), bpb*n))
	t.Logf("complete:128, m = n³: haar routed in G %.2f ± %.2f, in G[S_i] %.2f ± %.2f; greedy %.2f ± %.2f", gm, gs, sm, ss, em, es)
	if !zClear(gm, gs, sm, ss) {
		t.Errorf("routed in all of G, haar's gap %.2f ± %.2f is not clearly below routing in G[S_i], %.2f ± %.2f", gm, gs, sm, ss)
	}
}

// HaarPending replays only when K·log2|Size| < 2|Size|; a K near 2^64,
// whose product wrapped to a small number and asked for a K-slot buffer
// (makeslice: cap out of range), rebuilds instead.
func TestHaarPendingSaturates(t *testing.T) {
	for _, c := range []struct {
		size  int
		stale uint64
		want  uint64
	}{
		{1024, 0, 0}, {1024, 1, 0}, {1024, 100, 100}, {1024, 187, 0},
		{1024, 1 << 63, 0}, {1024, 1<<63 + 1<<62, 0}, {1 << 20, 10000000000000000000, 0},
	} {
		if got := kernels.HaarPending(c.size, c.stale); got != c.want {
			t.Errorf("HaarPending(%d, %d) = %d, want %d", c.size, c.stale, got, c.want)
		}
	}
}
