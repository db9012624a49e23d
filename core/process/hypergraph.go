package process

import (
	"fmt"
	"math"
	"strings"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Hypergraph: each ball draws a uniform hyperedge of --hyperedges, then d
// distinct uniform bins of it, and goes to the least loaded, ties at random
// — Greenhill, Mans and Pourmiri 2020, "Balanced allocation on
// hypergraphs". With --probe-all it probes every bin of the hyperedge
// (Godfrey 2008). With --refresh R, a random:s,k hypergraph is redrawn every
// R balls from the trial's own structure stream.
//
// Direct engine only (hyperedges are sets of names): kernels.Hyper. The
// hypergraph is built once in Check (structures.go) and shared by every
// trial, except under --refresh, where each trial redraws its own copy of
// the members (kernels.RandomSubsets, stream
// kernels.TrialStream(seed, trial, kernels.LaneStructure)).

// Hypergraph is the hypergraph process.
type Hypergraph struct {
	HyperSpec  string // --hyperedges
	D          int    // bins probed per ball (without --probe-all)
	ProbeAll   bool   // Godfrey's model: every bin of the hyperedge probed
	Refresh    uint64 // a fresh random hypergraph every Refresh balls; 0 never
	GraphClean string // refuse or drop self-loops and duplicates in files

	hyper *graph.Hypergraph
	topo  *kernels.HyperTopo // as the loop sees it
}

var hypergraphEntry = &Entry{
	Name: "hypergraph", Order: 130,
	Summary: "a uniform hyperedge, then d distinct uniform bins of it; the least loaded (ties at random)",
	Source:  "Greenhill, Mans, Pourmiri 2020 (Balanced allocation on hypergraphs); Godfrey 2008 (--probe-all)",
	New:     func() Process { return &Hypergraph{} },
}

func init() { Register(hypergraphEntry) }

func (*Hypergraph) Entry() *Entry { return hypergraphEntry }

func (p *Hypergraph) Params() []*Param {
	return []*Param{
		Custom("hyperedges", "hypergraph: the hyperedges, "+graph.HyperFamilies, func(v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("--hyperedges: want %s", graph.HyperFamilies)
			}
			p.HyperSpec = v
			return nil
		}, func() any { return p.HyperSpec }).Need("hyperedges: " + graph.HyperFamilies),
		DParam(&p.D, "distinct bins of the hyperedge probed per ball, 1 ≤ d ≤ its size (at most 64)").
			ShownWhen(func() bool { return !p.ProbeAll }),
		Bool("probe-all", "hypergraph: probe every bin of the hyperedge (Godfrey's model) instead of d of them", &p.ProbeAll).Def("false"),
		Count("refresh", "hypergraph random:s,k: draw a fresh hypergraph every R balls (0: never)", &p.Refresh, 0, "").Def("0").Listed().
			ShownWhen(func() bool { return p.Refresh > 0 }),
		GraphCleanParam(&p.GraphClean),
	}
}

// Check builds (or finds in the cache) the hypergraph and makes its bins
// the bins.
func (p *Hypergraph) Check(su *Setup) error {
	opt := graphOptions(su.Seed, p.GraphClean)
	h, err := cached(structureKey("hyper", p.HyperSpec, opt.Seed, su.Bins, p.GraphClean), func() (*graph.Hypergraph, error) {
		return graph.ParseHyper(p.HyperSpec, su.Bins, opt)
	})
	if err != nil {
		return err
	}
	if su.Bins != 0 && su.Bins != h.N {
		return fmt.Errorf("--bins %d disagrees with --hyperedges %s, over %d bins", su.Bins, h.Spec, h.N)
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
	case p.ProbeAll && su.Given["d"]:
		return fmt.Errorf("--d applies to hypergraph without --probe-all (which probes every bin of the hyperedge)")
	case !p.ProbeAll && uint64(p.D) > smallest:
		return fmt.Errorf("--d %d exceeds the smallest hyperedge of %s (%d bins): a ball probes d distinct bins of its hyperedge", p.D, h.Spec, smallest)
	case !p.ProbeAll && p.D > 64:
		return fmt.Errorf("--d %d: hypergraph probes at most 64 bins per ball (use --probe-all for whole hyperedges)", p.D)
	case p.Refresh > 0 && h.Family != graph.RandomK:
		return fmt.Errorf("--refresh applies to --hyperedges random:s,k, the only family balloc redraws")
	}
	su.Bins = h.N
	p.use(h)
	return nil
}

// use makes h the hypergraph, as the loop sees it.
func (p *Hypergraph) use(h *graph.Hypergraph) {
	p.hyper = h
	p.topo = &kernels.HyperTopo{N: uint32(h.N), S: uint32(h.S), K: uint32(h.K), Intervals: h.Family == graph.Intervals, Members: h.Members, Offsets: h.Offsets}
}

// Structure is the hypergraph, once checked.
func (p *Hypergraph) Structure() *graph.Hypergraph { return p.hyper }

// Probing: d bins probed per hyperedge, a fresh hypergraph every Refresh
// balls.
func (p *Hypergraph) Probing() (d int, refresh uint64) { return p.D, p.Refresh }

// BinsCulprit: a file's bins are its own; random and interval hyperedges
// are over --bins.
func (p *Hypergraph) BinsCulprit() (culprit, hint string) {
	if strings.HasPrefix(p.HyperSpec, "file:") {
		return "--hyperedges " + p.HyperSpec, "use fewer bins in --hyperedges"
	}
	return "--bins " + units.FormatCount(p.hyper.N), "lower --bins"
}

// Memory: under --refresh a trial holds its own copy of the members.
func (p *Hypergraph) Footprint(f *units.Footprint, m Mem) {
	if p.Refresh > 0 {
		f.Add("--hyperedges "+p.HyperSpec, "use fewer or smaller --hyperedges", units.Mul(uint64(len(p.hyper.Members)), 4))
	}
}

type hyperLoop[L kernels.Load] struct {
	r        *kernels.PCG32
	h        *kernels.HyperTopo
	d        int
	probeAll bool
}

func (l *hyperLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.Hyper(loads, l.r, c, l.h, l.d, l.probeAll, maxLoad)
}

// hyperRefreshLoop redraws its own hypergraph every refresh balls: Step
// stops at a refresh boundary, returning fewer balls than asked.
type hyperRefreshLoop[L kernels.Load] struct {
	hyperLoop[L]
	refresh uint64
	restock kernels.PCG32 // the trial's structure stream
}

func (l *hyperRefreshLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	r := l.refresh
	if t%r == 0 {
		// Ball t+1 starts a new round: a fresh hypergraph from the trial's
		// own structure stream.
		kernels.RandomSubsets(l.h.Members, l.h.N, int(l.h.K), &l.restock)
	}
	return l.hyperLoop.Step(loads, t, min(c, r-t%r), maxLoad)
}

func hyperDirect[L kernels.Load](p *Hypergraph, tr *Trial) Stepper[L] {
	loop := hyperLoop[L]{r: tr.Choices, h: p.topo, d: p.D, probeAll: p.ProbeAll}
	if p.Refresh == 0 {
		return &loop
	}
	h := *p.topo
	h.Members = make([]uint32, len(p.topo.Members))
	loop.h = &h
	return &hyperRefreshLoop[L]{hyperLoop: loop, refresh: p.Refresh,
		restock: kernels.TrialStream(tr.Seed, tr.Index, kernels.LaneStructure)}
}

func (p *Hypergraph) Direct32(tr *Trial) Stepper[uint32] { return hyperDirect[uint32](p, tr) }
func (p *Hypergraph) Direct64(tr *Trial) Stepper[uint64] { return hyperDirect[uint64](p, tr) }
