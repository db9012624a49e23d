package graph

import (
	"fmt"
	"strings"

	"github.com/balloc/balloc/core/units"
)

// availableMemory is the memory available for new allocations
// (units.MemoryLimit; tests set it).
var availableMemory = units.MemoryLimit

// SetAvailableMemory tells the builders and readers how much memory they
// may take.
func SetAvailableMemory(f func() uint64) {
	availableMemory = func() units.Memory { return units.Memory{Bytes: f(), Limit: "set by a test"} }
}

// smallBuild is the size below which checkBuild does not read the limits:
// units.MemoryLimit reads /proc (about 0.05 ms a call), which a study or a
// test drawing 10^5 small graphs paid per graph (TestRandomRegularUniformEnumerated:
// 19 s of 20), and such a structure fits in the runtime reserve that
// MemoryLimit holds back from every limit (64 MiB and more).
const smallBuild = 1 << 20

// checkBuild refuses to build a structure whose arrays need more than the
// memory available, before the first of them is allocated: flag and spec
// name it ("--graph random-regular:1e9,3").
func checkBuild(flag, spec string, need uint64) error {
	if need < smallBuild {
		return nil
	}
	if mem := availableMemory(); mem.Bytes > 0 && need > mem.Bytes {
		return fmt.Errorf("%s %s: building it needs about %s, more than the %v; use a smaller %s", flag, spec, units.FormatBytes(float64(need)), mem, flag)
	}
	return nil
}

// explicitBytes is what NewExplicit holds for n vertices and e edges: the
// edge array and the CSR adjacency (4 bytes an endpoint each), the offsets
// and their working copy (8 bytes a vertex each).
func explicitBytes(n, e uint64) uint64 {
	return units.Add(units.Mul(16, e), units.Mul(16, units.Add(n, 1)))
}

// regularBytes bounds the memory of RandomRegular(n, d): the generator's
// point arrays (pts, mate or nbv, and the edge list it returns: 4 bytes a
// point each, n·d points, of the degree it draws, d or n−1−d for a
// complement), its per-vertex arrays (9 bytes a vertex), all of which may
// still be live while the graph's arrays are built; for a complement, the
// inner graph's arrays too.
func regularBytes(n, d uint64) uint64 {
	drawn := min(d, n-1-d)
	need := units.Add(units.Mul(12, units.Mul(n, drawn)), units.Mul(9, n))
	need = units.Add(need, explicitBytes(n, units.Mul(n, d)/2))
	if drawn != d {
		need = units.Add(need, units.Add(explicitBytes(n, units.Mul(n, drawn)/2), units.Mul(4, n)))
	}
	return need
}

// HyperStatsBytes bounds what ComputeHyperStats allocates beside h: a
// compacted copy of the memberships and the sorted bins in use (4 bytes a
// membership each), three per-bin arrays (degree and two weights, 8 bytes
// each), and the bin→hyperedge index with its scratch (8 bytes an id of
// offsets, 4 a membership, 20 an id) unless the index would pass
// opt.MaxIndexBytes, when the pair statistics are skipped.
func HyperStatsBytes(h *Hypergraph, opt HyperStatsOptions) uint64 {
	if opt.MaxIndexBytes == 0 {
		opt.MaxIndexBytes = DefaultHyperIndexBytes
	}
	sum := units.Mul(h.S, h.K)
	if h.K == 0 {
		sum = uint64(len(h.Members))
	}
	need := units.Add(units.Mul(8, sum), units.Mul(24, h.N))
	index := units.Add(units.Mul(8, units.Add(h.N, 1)), units.Mul(4, sum))
	if index <= opt.MaxIndexBytes {
		need = units.Add(need, units.Add(index, units.Mul(20, h.N)))
	}
	return need
}

// CheckHyperStatsSpec is CheckHyperStats before the hypergraph is built,
// for the families whose shape the spec gives (random:s,k and intervals:k
// over n bins), counting the members it will draw too; a file's shape is
// known once read, and CheckHyperStats checks it then. A spec it cannot
// read is left to ParseHyper to refuse.
func CheckHyperStatsSpec(spec string, n uint64, opt HyperStatsOptions) error {
	kind, arg, _ := strings.Cut(spec, ":")
	h := &Hypergraph{Spec: spec, N: n}
	var xs []uint64
	for _, s := range strings.Split(arg, ",") {
		x, err := units.ParseCount(strings.TrimSpace(s))
		if err != nil {
			return nil
		}
		xs = append(xs, x)
	}
	switch {
	case kind == "random" && len(xs) == 2:
		h.S, h.K = xs[0], xs[1]
	case kind == "intervals" && len(xs) == 1:
		h.S, h.K = n, xs[0]
	default:
		return nil
	}
	need := HyperStatsBytes(h, opt)
	if kind == "random" {
		need = units.Add(need, units.Mul(4, units.Mul(h.S, h.K)))
	}
	if mem := availableMemory(); mem.Bytes > 0 && need > mem.Bytes {
		return fmt.Errorf("--hyperedges %s: building it and its statistics need about %s, more than the %v; use fewer or smaller hyperedges", spec, units.FormatBytes(float64(need)), mem)
	}
	return nil
}

// CheckHyperStats refuses hypergraph statistics that would not fit in the
// memory available.
func CheckHyperStats(h *Hypergraph, opt HyperStatsOptions) error {
	if need, mem := HyperStatsBytes(h, opt), availableMemory(); mem.Bytes > 0 && need > mem.Bytes {
		return fmt.Errorf("--hyperedges %s: its statistics need about %s, more than the %v; use fewer or smaller hyperedges", h.Spec, units.FormatBytes(float64(need)), mem)
	}
	return nil
}
