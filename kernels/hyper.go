package kernels

// Allocation on hypergraphs (Greenhill, Mans, Pourmiri, "Balanced allocation
// on hypergraphs"; Godfrey, SODA 2008): a ball draws a hyperedge uniformly,
// then d distinct bins of it uniformly, and goes to a least loaded one.

// HyperTopo is a hypergraph as the allocation loop sees it: hyperedge e is
// the cyclic window e, ..., e+K−1 of the N bins (Intervals), or
// Members[e·K:(e+1)·K] (K > 0), or Members[Offsets[e]:Offsets[e+1]].
type HyperTopo struct {
	N         uint32
	S         uint32 // hyperedges
	K         uint32 // common size, 0 when sizes vary
	Intervals bool
	Members   []uint32
	Offsets   []uint64
}

// bin returns position p of a hyperedge starting at base (its first bin for
// intervals, its offset in Members otherwise).
func (h *HyperTopo) bin(base uint64, p uint32) uint32 {
	if h.Intervals {
		b := uint32(base) + p
		if b >= h.N {
			b -= h.N
		}
		return b
	}
	return h.Members[base+uint64(p)]
}

// Hyper throws count balls on hypergraph h: each draws a hyperedge
// uniformly, then d distinct positions of it uniformly and in order (the
// first uniform among all, the next among the rest, ...), and goes to the
// first least loaded of those bins. The ordered positions are exchangeable,
// so the first minimiser is a uniformly random one: ties are broken at
// random, as in TwoChoice. With probeAll (Godfrey's model) it goes to a
// least loaded bin of the whole hyperedge, ties broken uniformly by
// reservoir sampling. Bins within a hyperedge are distinct, and
// 1 ≤ d ≤ the smallest hyperedge (d ≤ 64).
//
// Stream per ball: PCG32.Bounded(S); then Bounded(k), Bounded(k−1), ...,
// Bounded(k−d+1) for the positions (k the hyperedge's size); with probeAll,
// Bounded(c) for the c-th tied minimum met, c ≥ 2, instead.
func Hyper[L Load](loads []L, r *PCG32, count uint64, h *HyperTopo, d int, probeAll bool, maxLoad L) L {
	s, inc := r.state, r.inc()
	var chosen [64]uint32 // positions drawn so far, ascending
	for ; count > 0; count-- {
		var e uint32
		s, e = boundedFast(s, inc, h.S)
		var base uint64
		k := h.K
		switch {
		case h.Intervals:
			base = uint64(e)
		case k > 0:
			base = uint64(e) * uint64(k)
		default:
			base = h.Offsets[e]
			k = uint32(h.Offsets[e+1] - base)
		}
		var best uint32
		var bl L
		switch {
		case probeAll:
			best = h.bin(base, 0)
			bl = loads[best]
			ties := uint32(1)
			for p := uint32(1); p < k; p++ {
				b := h.bin(base, p)
				switch l := loads[b]; {
				case l < bl:
					best, bl, ties = b, l, 1
				case l == bl:
					ties++
					var x uint32
					if s, x = bounded(s, inc, ties); x == 0 {
						best = b
					}
				}
			}
		case d == 2:
			s0 := s
			var m1, m2 uint64
			s, m1 = lemire(s, inc, uint64(k))
			s, m2 = lemire(s, inc, uint64(k-1))
			p, q := uint32(m1>>32), uint32(m2>>32)
			if uint32(m1) < k || uint32(m2) < k-1 {
				s, p = bounded(s0, inc, k) // exact, probability < 2k/2^32
				s, q = bounded(s, inc, k-1)
			}
			if q >= p {
				q++
			}
			best = h.bin(base, p)
			bl = loads[best]
			b := h.bin(base, q)
			lb := loads[b]
			best, bl = selectIf(lb < bl, b, best), min(bl, lb)
		default:
			for t := range d {
				// The x-th unused position: step over the chosen ones.
				var x uint32
				s, x = bounded(s, inc, k-uint32(t))
				at := 0
				for at < t && chosen[at] <= x {
					x++
					at++
				}
				copy(chosen[at+1:t+1], chosen[at:t])
				chosen[at] = x
				b := h.bin(base, x)
				if l := loads[b]; t == 0 || l < bl {
					best, bl = b, l
				}
			}
		}
		bl++
		loads[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	r.state = s
	return maxLoad
}
