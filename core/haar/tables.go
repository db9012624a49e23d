package haar

import (
	"fmt"
	"math"
	"slices"

	"github.com/balloc/balloc/kernels"
)

// tables normalises the flows once and builds every edge's alias table: with λ_i the node's demand (see Scale) and
// C = max_e Σ_i λ_i|f_i(e)|, edge e uses node i with probability
// P_e(i) = λ_i|f_i(e)|/C and ∅ with the rest, 1 − Σ_i P_e(i) ≥ 0.
//
// Direction (the paper's allocation stage, step 3): f_i carries mass from
// S_r to S_l; the ball must go where mass moves from the heavier child to
// the lighter, so when f_i(x→y) > 0 it goes to y exactly when S_r is the
// heavier, and when f_i(x→y) < 0 exactly when S_l is. The child code is
// therefore 2i+1 (S_r) for a positive flow, 2i (S_l) for a negative one:
// the paper's σ_e(i) = −sign f_i(x→y).
func (b *builder) tables(p *Plan) error {
	ne := int(b.g.E)
	lambda := make([]float64, len(b.nodes))
	for k := range b.nodes {
		largest := 0.0
		for _, f := range b.flowVal[b.flowOff[k]:b.flowOff[k+1]] {
			largest = max(largest, math.Abs(f))
		}
		lambda[k] = 1
		if b.opt.Scale == ScaleCongestion {
			lambda[k] = 1 / largest
		}
		b.nodes[k].Lambda = lambda[k]
	}
	load := make([]float64, ne)
	start := make([]uint32, ne+1) // the entries of edge e: start[e]:start[e+1]
	for k := range b.nodes {
		for i := b.flowOff[k]; i < b.flowOff[k+1]; i++ {
			e := b.flowEdge[i]
			load[e] += lambda[k] * math.Abs(b.flowVal[i])
			start[e+1]++
		}
	}
	c := slices.Max(load)
	p.C = c
	for e := range ne {
		start[e+1] += start[e]
	}
	code := make([]uint32, start[ne])
	prob := make([]float64, start[ne])
	next := slices.Clone(start[:ne])
	for k, nd := range b.nodes {
		for i := b.flowOff[k]; i < b.flowOff[k+1]; i++ {
			e, f := b.flowEdge[i], b.flowVal[i]
			j := next[e]
			next[e]++
			code[j] = 2 * nd.Heap
			if f > 0 {
				code[j]++
			}
			prob[j] = lambda[k] * math.Abs(f) / c
		}
	}
	if !b.opt.KeepFlows {
		b.flowEdge, b.flowVal = nil, nil // let the collector have them while the tables grow
	}
	next = nil

	t := &p.Tables
	t.Edges = make([]kernels.HaarEdge, ne)
	t.Slots = make([]kernels.HaarSlot, 0, int(start[ne])+ne)
	var w []uint64
	var codes []uint32
	var cols []column
	for e := range ne {
		codes, w = quantize(codes[:0], w[:0], code[start[e]:start[e+1]], prob[start[e]:start[e+1]])
		if len(t.Slots)+len(codes) >= math.MaxUint32 {
			return fmt.Errorf("haar: graph %s: more than 2^32 alias columns", b.g.Spec)
		}
		x, y := b.g.Edge(uint64(e))
		t.Edges[e] = kernels.HaarEdge{X: uint32(x), Y: uint32(y), Off: uint32(len(t.Slots)), Len: uint32(len(codes))}
		cols = vose(cols[:0], codes, w)
		lx := b.leaf[x]
		for _, c := range cols {
			own, alias := kernels.HaarField(lx, c.own), kernels.HaarField(lx, c.alias)
			if own == kernels.HaarEscape || alias == kernels.HaarEscape {
				t.Wide = append(t.Wide, kernels.HaarWide{Slot: uint32(len(t.Slots)), Own: c.own, Alias: c.alias})
			}
			t.Slots = append(t.Slots, kernels.HaarSlot{Keep: c.keep, Own: own, Alias: alias})
		}
	}
	t.Leaf = b.leaf
	t.Size = make([]uint32, len(b.lo))
	for h := 2; h < len(b.lo); h++ {
		t.Size[h] = b.hi[h] - b.lo[h]
	}
	return nil
}

// one is probability 1 in the units of an alias column.
const one = 1 << 32

// quantize turns an edge's law (node outcomes; ∅ takes the rest) into
// integer weights summing to exactly k·2^32 for its k outcomes, so that
// vose's columns realise it exactly: each weight is its probability times
// k·2^32 rounded, ∅ absorbs the rounding, and outcomes whose weight
// rounds to zero (probability below 2^-33/k) are dropped, which changes k,
// so the rounding is redone until nothing more drops.
func quantize(codes []uint32, w []uint64, code []uint32, prob []float64) ([]uint32, []uint64) {
	keep := make([]bool, len(code))
	for i := range keep {
		keep[i] = prob[i] > 0
	}
	rest := 1.0
	for _, q := range prob {
		rest -= q
	}
	empty := rest > 0
	for {
		codes, w = codes[:0], w[:0]
		k := 0
		for _, kp := range keep {
			if kp {
				k++
			}
		}
		if empty {
			k++
		}
		total := uint64(k) * one
		sum := uint64(0)
		dropped := false
		for i, kp := range keep {
			if !kp {
				continue
			}
			x := uint64(math.Round(prob[i] * float64(total)))
			if x == 0 {
				keep[i] = false
				dropped = true
				continue
			}
			codes = append(codes, code[i])
			w = append(w, x)
			sum += x
		}
		if dropped {
			continue
		}
		if empty {
			if sum >= total {
				empty = false
				continue
			}
			codes = append(codes, 0)
			w = append(w, total-sum)
			return codes, w
		}
		// No ∅: the law sums to 1 up to rounding; the largest weight
		// absorbs the difference (a few units in k·2^32).
		big := 0
		for i := range w {
			if w[i] > w[big] {
				big = i
			}
		}
		w[big] = w[big] + total - sum
		return codes, w
	}
}

// column is an alias column with full child codes, before tables codes
// them relative to the edge (kernels.HaarField).
type column struct{ keep, own, alias uint32 }

// vose appends the alias columns of outcomes codes with integer weights w
// summing to len(w)·2^32 (Vose 1991, in exact integers): column i keeps
// outcome i below keep and hands the rest of its 2^32 to a large outcome.
func vose(dst []column, codes []uint32, w []uint64) []column {
	base := len(dst)
	for _, c := range codes {
		dst = append(dst, column{keep: math.MaxUint32, own: c, alias: c})
	}
	var small, large []int
	for i, x := range w {
		if x < one {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		dst[base+s].keep = uint32(w[s])
		dst[base+s].alias = codes[l]
		w[l] -= one - w[s]
		if w[l] < one {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Exact integers leave every remaining outcome at exactly 2^32: kept
	// with probability 1 (Alias = Own).
	return dst
}
