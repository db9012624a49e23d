package process_test

import (
	"math/big"
	"sort"

	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

func init() {
	table = append(table,
		proctable.Row{Process: "bounded-hashing", Params: map[string]string{"c": "1.25"}, Slow: slowHashing("1.25", 1, nil)},
		proctable.Row{Process: "bounded-hashing", Params: map[string]string{"c": "1.1", "vnodes": "3"}, Slow: slowHashing("1.1", 3, nil)},
		proctable.Row{Process: "bounded-hashing", Params: map[string]string{"c": "3", "vnodes": "2"}, Slow: slowHashing("3", 2, nil)},
	)
}

// slowRing is a ring drawn literally: node r of bin b at the Uint64 drawn
// for it (b = 0 … n−1, r = 0 … v−1), then sorted by position, ties by bin.
type slowRing struct {
	pos []uint64
	bin []int
}

func newSlowRing(st *kernels.PCG32, n, v int) slowRing {
	type node struct {
		pos uint64
		bin int
	}
	var nodes []node
	for b := range n {
		for range v {
			nodes = append(nodes, node{st.Uint64(), b})
		}
	}
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].pos != nodes[j].pos {
			return nodes[i].pos < nodes[j].pos
		}
		return nodes[i].bin < nodes[j].bin
	})
	var g slowRing
	for _, x := range nodes {
		g.pos = append(g.pos, x.pos)
		g.bin = append(g.bin, x.bin)
	}
	return g
}

// hashCapacity is ⌈c·T/n⌉ in rationals, c the decimal as written.
func hashCapacity(c string, T, n uint64) uint64 {
	r, ok := new(big.Rat).SetString(c)
	if !ok {
		panic("bad c " + c)
	}
	r.Mul(r, new(big.Rat).SetFrac(new(big.Int).SetUint64(T), new(big.Int).SetUint64(n)))
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Uint64()
}

// slowHashing: the ring drawn at a trial's first ball from the structure
// stream; each ball a Uint64 point, the first node at or after it (found
// by scanning from the lowest, wrapping to the lowest when none), then
// node after node clockwise until a bin's load is below ⌈c(t+1)/n⌉. Each
// node visited is a probe, added to probes when it is not nil.
func slowHashing(c string, v int, probes *[]uint64) func([]uint64, proctable.Trial, uint64) {
	var ring slowRing
	var from *kernels.PCG32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if from != tr.Structure || t == 0 {
			from = tr.Structure
			ring = newSlowRing(tr.Structure, len(loads), v)
		}
		limit := hashCapacity(c, t+1, uint64(len(loads)))
		u := tr.Choices.Uint64()
		i := 0
		for i < len(ring.pos) && ring.pos[i] < u {
			i++
		}
		k := uint64(1)
		for i %= len(ring.pos); loads[ring.bin[i]] >= limit; i = (i + 1) % len(ring.pos) {
			k++
		}
		loads[ring.bin[i]]++
		if probes != nil {
			*probes = append(*probes, k)
		}
	}
}
