package kernels

import "math"

// Graphical allocation: a ball samples an edge of a graph uniformly and goes
// to an endpoint (Kenthapadi & Panigrahy 2006; Peres, Talwar, Wieder 2015).
// The loop computes the edge from its index for the implicit families and
// reads it from an edge array otherwise; both number edges as core/graph's
// Graph.Edge does, so an implicit graph and its materialized twin give the
// same trial.

// TopoKind is how a Topology finds the endpoints of edge e.
type TopoKind uint8

const (
	TopoCycle     TopoKind = iota + 1 // (e, e+1 mod n)
	TopoPath                          // (e, e+1)
	TopoTorus                         // e = j·n + v: (v, its successor in dimension j)
	TopoHypercube                     // e = j·n/2 + w: (w with 0 inserted at bit j, the same with 1)
	TopoComplete                      // e = (k−1)·n + i: (i, i+k mod n)
	TopoEdges                         // (Edges[2e], Edges[2e+1])
)

// Topology is a graph as the allocation loop sees it.
type Topology struct {
	Kind  TopoKind
	N     uint32
	E     uint32 // edges, at least 1
	Edges []uint32
	K     uint32 // hypercube dimension
	dims  []torusDim
	nDiv  Divisor32 // division by N (torus, complete)
}

type torusDim struct {
	stride, last, wrap uint32 // last = (side−1)·stride, wrap = (side−1)·stride
	block              Divisor32
}

// NewTorusTopology returns the torus with the given sides (each ≥ 3, first
// varying fastest, n·len(sides) < 2^32).
func NewTorusTopology(sides []uint32) Topology {
	t := Topology{Kind: TopoTorus, N: 1}
	for _, s := range sides {
		d := torusDim{stride: t.N, last: (s - 1) * t.N, wrap: (s - 1) * t.N, block: NewDivisor32(s * t.N)}
		t.dims = append(t.dims, d)
		t.N *= s
	}
	t.E = t.N * uint32(len(sides))
	t.nDiv = NewDivisor32(t.N)
	return t
}

// NewCompleteTopology returns the complete graph on n ≥ 2 vertices
// (n(n−1)/2 < 2^32).
func NewCompleteTopology(n uint32) Topology {
	return Topology{Kind: TopoComplete, N: n, E: uint32(uint64(n) * uint64(n-1) / 2), nDiv: NewDivisor32(n)}
}

// Edge returns the endpoints of edge e: Graph.Edge on 32-bit indices.
func (t *Topology) Edge(e uint32) (u, v uint32) {
	switch t.Kind {
	case TopoCycle:
		u, v = e, e+1
		if v == t.N {
			v = 0
		}
	case TopoPath:
		u, v = e, e+1
	case TopoTorus:
		j := t.nDiv.Div(e)
		u = e - j*t.N
		d := &t.dims[j]
		v = u + d.stride
		if d.block.Mod(u) >= d.last {
			v = u - d.wrap
		}
	case TopoHypercube:
		j := e >> (t.K - 1)
		w := e & (1<<(t.K-1) - 1)
		u = (w>>j)<<(j+1) | w&(1<<j-1)
		v = u | 1<<j
	case TopoComplete:
		k := t.nDiv.Div(e)
		u = e - k*t.N
		v = u + k + 1
		if v >= t.N {
			v -= t.N
		}
	default:
		u, v = t.Edges[2*e], t.Edges[2*e+1]
	}
	return u, v
}

// Coins is a buffer of fair coins (the bits of one PCG32 output, low bit
// first), kept between calls so that chunking never changes the stream.
type Coins struct {
	word, left uint32
}

// Graphical throws count balls: each samples an edge uniformly, then goes to
// its less loaded endpoint, a uniformly random endpoint on a tie. With a
// coin β (not nil) that choice is made with probability β and otherwise the
// ball goes to a uniformly random endpoint: the (1+β) process on graphs of
// Peres, Talwar and Wieder.
//
// Stream per ball: PCG32.Bounded(E); then the β coin (Bernoulli.Flip), when
// β is given; then one bit of coins (a fresh PCG32 output every 32 balls),
// used on a tie or a random-endpoint step. Drawing the bit on every ball
// keeps the loop free of a branch on ties, which half the balls meet.
func Graphical[L Load](loads []L, r *PCG32, count uint64, t *Topology, beta *Bernoulli, coins *Coins, maxLoad L) L {
	if beta == nil {
		switch t.Kind {
		case TopoCycle:
			return greedyCycle(loads, r, count, t, coins, maxLoad)
		case TopoTorus:
			return greedyTorus(loads, r, count, t, coins, maxLoad)
		case TopoHypercube:
			return greedyHypercube(loads, r, count, t, coins, maxLoad)
		case TopoEdges:
			return greedyEdges(loads, r, count, t, coins, maxLoad)
		}
	}
	s, inc := r.state, r.inc()
	word, left := coins.word, coins.left
	hi := uint32(math.MaxUint32)
	if beta != nil {
		hi = beta.hi
	}
	for ; count > 0; count-- {
		var e uint32
		s, e = bounded(s, inc, t.E)
		u, v := t.Edge(e)
		greedy := true
		if beta != nil {
			var c uint32
			s, c = step(s, inc)
			greedy = c < hi
			if c == hi {
				s, greedy = beta.flipTail(s, inc)
			}
		}
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		pick := greedyPick(loads, u, v, heads)
		if !greedy {
			pick = u
			if heads != 0 {
				pick = v
			}
		}
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

// greedyPick is the endpoint of edge (u, v) that a greedy ball takes: the
// less loaded, or v on a tie when heads.
func greedyPick[L Load](loads []L, u, v uint32, heads uint32) uint32 {
	return selectIf(lessOrTie(loads[v], loads[u], heads), v, u)
}

// The greedy loops of the families with a speed target: Graphical's stream,
// with the edge computed inline.
//
// The cycle and edge-list loops keep Lemire's opening written out instead of
// boundedFast: with it, BenchmarkGraphs ran 0.945× (cycle) and 0.962×
// (random-regular-8) the written-out speed (medians of 4 alternated runs);
// torus and hypercube were unchanged (1.013×, 1.007×) and use boundedFast.
//
// They stay four loops, not one generic loop over an edge mapping (a type
// parameter M with an endpoints(e) method, one small struct per family): Go
// compiles a method call on a type parameter through the instantiation's
// dictionary, an indirect call that does not inline, and BenchmarkGraphs
// ran 0.75× (cycle), 0.84× (torus), 0.94× (hypercube) and 0.84×
// (random-regular-8) of these loops (medians of 3 alternated runs, go1.26).

func greedyCycle[L Load](loads []L, r *PCG32, count uint64, t *Topology, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := coins.word, coins.left
	n := t.N
	for ; count > 0; count-- {
		s0 := s
		var m uint64
		s, m = lemire(s, inc, uint64(t.E))
		u := uint32(m >> 32)
		if uint32(m) < t.E {
			s, u = bounded(s0, inc, t.E) // exact, probability < E/2^32
		}
		v := u + 1
		if v == n {
			v = 0
		}
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		pick := greedyPick(loads, u, v, heads)
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

func greedyTorus[L Load](loads []L, r *PCG32, count uint64, t *Topology, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := coins.word, coins.left
	for ; count > 0; count-- {
		var e uint32
		s, e = boundedFast(s, inc, t.E)
		j := t.nDiv.Div(e)
		u := e - j*t.N
		d := &t.dims[j]
		v := u + d.stride
		if d.block.Mod(u) >= d.last {
			v = u - d.wrap
		}
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		pick := greedyPick(loads, u, v, heads)
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

func greedyHypercube[L Load](loads []L, r *PCG32, count uint64, t *Topology, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := coins.word, coins.left
	low := uint32(1)<<(t.K-1) - 1
	for ; count > 0; count-- {
		var e uint32
		s, e = boundedFast(s, inc, t.E)
		j := e >> (t.K - 1)
		w := e & low
		u := (w>>j)<<(j+1) | w&(1<<j-1)
		v := u | 1<<j
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		pick := greedyPick(loads, u, v, heads)
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

func greedyEdges[L Load](loads []L, r *PCG32, count uint64, t *Topology, coins *Coins, maxLoad L) L {
	s, inc := r.state, r.inc()
	word, left := coins.word, coins.left
	edges := t.Edges
	for ; count > 0; count-- {
		s0 := s
		var m uint64
		s, m = lemire(s, inc, uint64(t.E))
		e := uint32(m >> 32)
		if uint32(m) < t.E {
			s, e = bounded(s0, inc, t.E) // exact, probability < E/2^32
		}
		u, v := edges[2*e], edges[2*e+1]
		var heads uint32
		s, word, left, heads = coin(s, inc, word, left)
		pick := greedyPick(loads, u, v, heads)
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	coins.word, coins.left = word, left
	return maxLoad
}

// GraphicalWide is Graphical for implicit graphs of 2^32 edges or more:
// PCG32.Bounded64(E) per ball instead of Bounded, edges computed in 64 bits
// (edge64), and the same coins. Slower: plain divisions.
func GraphicalWide[L Load](loads []L, r *PCG32, count uint64, t *WideTopology, beta *Bernoulli, coins *Coins, maxLoad L) L {
	for ; count > 0; count-- {
		u, v := t.Edge(r.Bounded64(t.E))
		greedy := true
		if beta != nil {
			greedy = beta.Flip(r)
		}
		if coins.left == 0 {
			coins.word, coins.left = r.Uint32(), 32
		}
		heads := coins.word&1 != 0
		coins.word >>= 1
		coins.left--
		lu, lv := loads[u], loads[v]
		pick := u
		if greedy && (lv < lu || lv == lu && heads) || !greedy && heads {
			pick = v
		}
		l := loads[pick] + 1
		loads[pick] = l
		maxLoad = max(maxLoad, l)
	}
	return maxLoad
}

// WideTopology is an implicit graph with 2^32 edges or more (a torus,
// hypercube or complete graph); Sides is the torus's, K the hypercube's.
type WideTopology struct {
	Kind  TopoKind
	N, E  uint64
	Sides []uint64
	K     uint64
}

// Edge is Graph.Edge for the wide implicit families.
func (t *WideTopology) Edge(e uint64) (u, v uint64) {
	n := t.N
	switch t.Kind {
	case TopoTorus:
		j := e / n
		u = e % n
		stride := uint64(1)
		for _, s := range t.Sides[:j] {
			stride *= s
		}
		side := t.Sides[j]
		if (u/stride)%side == side-1 {
			return u, u - (side-1)*stride
		}
		return u, u + stride
	case TopoHypercube:
		j := e >> (t.K - 1)
		w := e & (1<<(t.K-1) - 1)
		u = (w>>j)<<(j+1) | w&(1<<j-1)
		return u, u | 1<<j
	case TopoComplete:
		k := e / n
		u = e % n
		return u, (u + k + 1) % n
	}
	panic("kernels: no wide topology of this kind")
}
