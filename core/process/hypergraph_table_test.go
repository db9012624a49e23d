package process_test

import (
	"slices"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

// Hypergraph's rows: the slow loop on the battery's 12 bins (intervals,
// random hyperedges drawn from the seed, --probe-all, --refresh, a file of
// hyperedges of varied sizes), the exact law on intervals and on a file
// over 3 and 4 bins (random hyperedges change with the law test's seeds,
// which the law does not see).
func init() {
	hp := func(spec string, more ...string) map[string]string {
		p := map[string]string{"hyperedges": spec}
		for i := 0; i < len(more); i += 2 {
			p[more[i]] = more[i+1]
		}
		return p
	}
	table = append(table,
		proctable.Row{Process: "hypergraph", Params: hp("intervals:4", "d", "2"), Slow: slowHypergraph("intervals:4", 2, false, 0)},
		proctable.Row{Process: "hypergraph", Params: hp("intervals:5", "d", "3"), Slow: slowHypergraph("intervals:5", 3, false, 0)},
		proctable.Row{Process: "hypergraph", Params: hp("random:6,4", "d", "2"), Slow: slowHypergraph("random:6,4", 2, false, 0)},
		proctable.Row{Process: "hypergraph", Params: hp("random:9,5", "d", "4"), Slow: slowHypergraph("random:9,5", 4, false, 0)},
		proctable.Row{Process: "hypergraph", Params: hp("random:8,5", "probe-all", "true"), Slow: slowHypergraph("random:8,5", 0, true, 0)},
		proctable.Row{Process: "hypergraph", Params: hp("random:6,4", "d", "3", "refresh", "7"), Slow: slowHypergraph("random:6,4", 3, false, 7)},
		proctable.Row{Process: "hypergraph", Params: hp("intervals:3", "d", "2"), Law: hyperLaw(4, 3, 2, false), N: 4, M: 5},
		proctable.Row{Process: "hypergraph", Params: hp("intervals:3", "probe-all", "true"), Law: hyperLaw(4, 3, 0, true), N: 4, M: 5},
		proctable.Row{Process: "hypergraph", Params: hp("intervals:2", "d", "1"), Law: hyperLaw(3, 2, 1, false), N: 3, M: 6},
		proctable.Row{Process: "hypergraph", Params: hp(hyper12, "d", "2"), Slow: slowHypergraph(hyper12, 2, false, 0)},
		proctable.Row{Process: "hypergraph", Params: hp(hyper12, "probe-all", "true"), Slow: slowHypergraph(hyper12, 0, true, 0)},
		proctable.Row{Process: "hypergraph", Params: hp(hyper4, "d", "2"), Law: hyperEdgesLaw(4, [][]int{{0, 1, 2}, {2, 3}, {3, 0, 1}}, 2, false), N: 4, M: 5},
		proctable.Row{Process: "hypergraph", Params: hp(hyper4, "probe-all", "true"), Law: hyperEdgesLaw(4, [][]int{{0, 1, 2}, {2, 3}, {3, 0, 1}}, 0, true), N: 4, M: 5},
	)
}

// Hyperedge files of varied sizes (the loop's offsets path): over 12 bins
// for the slow loop, over 4 for the law (testdata/hyperedges-4.txt lists
// the law's edges).
const (
	hyper12 = "file:testdata/hyperedges-12.txt"
	hyper4  = "file:testdata/hyperedges-4.txt"
)

// floyd is a uniform k-subset of [0, n) by Floyd's algorithm, in the order
// it adds the elements: for j = n−k … n−1, t uniform in [0, j], then t, or
// j when t is already in.
func floyd(n, k uint32, r *kernels.PCG32) []uint32 {
	var s []uint32
	for j := n - k; j < n; j++ {
		t := r.Bounded(j + 1)
		if slices.Contains(s, t) {
			t = j
		}
		s = append(s, t)
	}
	return s
}

// slowHypergraph: a uniform hyperedge (its bins in core/graph's order),
// then d distinct positions of it, the first uniform among all k, the next
// uniform among the k − 1 left (in ascending order of position), …, and
// the first least loaded of them in the order drawn; or, with probe-all,
// the least loaded of the whole hyperedge, the c-th tied minimum met (in
// order, c ≥ 2) taking the place with chance 1/c. With refresh R > 0, the
// s hyperedges of k bins are redrawn at the start of every R balls (ball 1
// included), each a Floyd subset, from the trial's structure stream.
func slowHypergraph(spec string, d int, probeAll bool, refresh uint64) func([]uint64, proctable.Trial, uint64) {
	var h *graph.Hypergraph
	var edges [][]uint64
	var restock kernels.PCG32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint64(len(loads))
		if t == 0 {
			var err error
			if h, err = graph.ParseHyper(spec, n, graph.Options{Seed: tr.Seed}); err != nil {
				panic(err)
			}
			edges = nil
			for e := range h.S {
				edges = append(edges, h.Edge(nil, e))
			}
			restock = kernels.TrialStream(tr.Seed, tr.Index, kernels.LaneStructure)
		}
		if refresh > 0 && t%refresh == 0 {
			for e := range edges {
				for i, b := range floyd(uint32(n), uint32(h.K), &restock) {
					edges[e][i] = uint64(b)
				}
			}
		}
		edge := edges[tr.Choices.Bounded(uint32(len(edges)))]
		var best uint64
		if probeAll {
			best = edge[0]
			ties := uint32(1)
			for _, b := range edge[1:] {
				switch {
				case loads[b] < loads[best]:
					best, ties = b, 1
				case loads[b] == loads[best]:
					ties++
					if tr.Choices.Bounded(ties) == 0 {
						best = b
					}
				}
			}
			loads[best]++
			return
		}
		unused := slices.Clone(edge)
		for i := range d {
			x := tr.Choices.Bounded(uint32(len(unused)))
			b := unused[x]
			unused = slices.Delete(unused, int(x), int(x)+1)
			if i == 0 || loads[b] < loads[best] {
				best = b
			}
		}
		loads[best]++
	}
}

// hyperLaw: a uniform interval of k bins (e, …, e+k−1 mod n), then the
// least loaded of a uniform d-subset of it, ties at random; with probeAll
// the least loaded of the interval, ties at random.
func hyperLaw(n, k, d int, probeAll bool) proctable.Transition {
	edges := make([][]int, n)
	for e := range edges {
		for i := range k {
			edges[e] = append(edges[e], (e+i)%n)
		}
	}
	return hyperEdgesLaw(n, edges, d, probeAll)
}

// hyperEdgesLaw: a uniform hyperedge of edges, then the least loaded of a
// uniform d-subset of it, ties at random; with probeAll the least loaded
// of the hyperedge, ties at random.
func hyperEdgesLaw(n int, edges [][]int, d int, probeAll bool) proctable.Transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		for _, bins := range edges {
			var subsets [][]int
			if probeAll {
				subsets = [][]int{bins}
			} else {
				subsets = kSubsets(bins, d)
			}
			for _, s := range subsets {
				lo := loads[s[0]]
				for _, b := range s {
					lo = min(lo, loads[b])
				}
				var tied []int
				for _, b := range s {
					if loads[b] == lo {
						tied = append(tied, b)
					}
				}
				for _, b := range tied {
					p[b] += 1 / float64(len(edges)) / float64(len(subsets)) / float64(len(tied))
				}
			}
		}
		return p
	}
}

// kSubsets are the d-subsets of s.
func kSubsets(s []int, d int) [][]int {
	if d == 0 {
		return [][]int{nil}
	}
	if len(s) < d {
		return nil
	}
	var out [][]int
	for _, rest := range kSubsets(s[1:], d-1) {
		out = append(out, append([]int{s[0]}, rest...))
	}
	return append(out, kSubsets(s[1:], d)...)
}
