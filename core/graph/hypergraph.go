package graph

import (
	"fmt"
	"strings"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// HFamily is how a hypergraph is stored.
type HFamily int

const (
	Intervals HFamily = iota + 1 // implicit: hyperedge e is the cyclic window e, e+1, ..., e+k−1 (mod n)
	RandomK                      // s uniformly random k-subsets of the bins, in Members
	HExplicit                    // loaded from a file: hyperedges of any size, in Members and Offsets
)

// Hypergraph is a list of hyperedges (sets of bins) over bins 0..N-1,
// numbered 0..S-1.
type Hypergraph struct {
	Spec   string
	Family HFamily
	N      uint64 // bins
	S      uint64 // hyperedges
	K      uint64 // the size of every hyperedge; 0 when sizes vary (files)

	// Hyperedge e holds Members[e·K : (e+1)·K] when K > 0, else
	// Members[Offsets[e]:Offsets[e+1]]. Empty for intervals.
	Members []uint32
	Offsets []uint64

	Origin string
}

// HyperFamilies lists the --hyperedges forms.
const HyperFamilies = "random:s,k, intervals:k or file:PATH"

// Size returns the number of bins in hyperedge e.
func (h *Hypergraph) Size(e uint64) uint64 {
	if h.K > 0 {
		return h.K
	}
	return h.Offsets[e+1] - h.Offsets[e]
}

// Edge appends the bins of hyperedge e to dst, in the order the allocation
// loops index them.
func (h *Hypergraph) Edge(dst []uint64, e uint64) []uint64 {
	switch {
	case h.Family == Intervals:
		for i := range h.K {
			dst = append(dst, (e+i)%h.N)
		}
	case h.K > 0:
		for _, b := range h.Members[e*h.K : (e+1)*h.K] {
			dst = append(dst, uint64(b))
		}
	default:
		for _, b := range h.Members[h.Offsets[e]:h.Offsets[e+1]] {
			dst = append(dst, uint64(b))
		}
	}
	return dst
}

// Materialize returns an explicit twin of an implicit (intervals)
// hypergraph: the same hyperedges, in the same order, as member lists.
func (h *Hypergraph) Materialize() *Hypergraph {
	if h.Family != Intervals {
		return h
	}
	members := make([]uint32, 0, h.S*h.K)
	var buf []uint64
	for e := range h.S {
		buf = h.Edge(buf[:0], e)
		for _, b := range buf {
			members = append(members, uint32(b))
		}
	}
	return &Hypergraph{Spec: h.Spec, Family: HExplicit, N: h.N, S: h.S, K: h.K, Members: members, Origin: "materialized " + h.Spec}
}

// ParseHyper builds the hypergraph a --hyperedges value names over n bins
// (n = 0: a file sets it). Random hypergraphs draw from
// StructureStream(opt.Seed).
func ParseHyper(spec string, n uint64, opt Options) (*Hypergraph, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("--hyperedges %q: want %s", spec, HyperFamilies)
	}
	if kind == "file" {
		return ReadHyperFile(spec, arg, n, opt.Clean)
	}
	if n == 0 {
		return nil, fmt.Errorf("--hyperedges %s needs --bins", spec)
	}
	if n > MaxVertices {
		return nil, fmt.Errorf("--hyperedges %s: at most %d bins", spec, uint64(MaxVertices))
	}
	nums := strings.Split(arg, ",")
	var xs []uint64
	for _, s := range nums {
		x, err := units.ParseCount(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--hyperedges %s: %v", spec, err)
		}
		xs = append(xs, x)
	}
	switch kind {
	case "intervals":
		if len(xs) != 1 || xs[0] < 1 || xs[0] > n {
			return nil, fmt.Errorf("--hyperedges %s: want intervals:k with 1 ≤ k ≤ bins (%d)", spec, n)
		}
		return &Hypergraph{Spec: spec, Family: Intervals, N: n, S: n, K: xs[0]}, nil
	case "random":
		if len(xs) != 2 || xs[0] < 1 || xs[1] < 1 || xs[1] > n {
			return nil, fmt.Errorf("--hyperedges %s: want random:s,k with s ≥ 1 hyperedges of 1 ≤ k ≤ bins (%d) bins", spec, n)
		}
		if xs[0] > (1<<34)/xs[1] {
			return nil, fmt.Errorf("--hyperedges %s: s·k = %d·%d bins listed is more than 2^34", spec, xs[0], xs[1])
		}
		if err := checkBuild("--hyperedges", spec, units.Mul(4, xs[0]*xs[1])); err != nil {
			return nil, err
		}
		h := &Hypergraph{Spec: spec, Family: RandomK, N: n, S: xs[0], K: xs[1], Members: make([]uint32, xs[0]*xs[1])}
		rng := StructureStream(opt.Seed)
		kernels.RandomSubsets(h.Members, uint32(n), int(h.K), &rng)
		h.Origin = fmt.Sprintf("%d uniformly random %d-subsets of %d bins (Floyd's algorithm), drawn from the run's seed", h.S, h.K, n)
		return h, nil
	}
	return nil, fmt.Errorf("--hyperedges %q: unknown family %q; want %s", spec, kind, HyperFamilies)
}
