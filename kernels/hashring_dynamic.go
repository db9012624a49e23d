package kernels

import "math/bits"

// Consistent hashing with bounded loads in the supermarket model (core's
// bounded-hashing with --arrival-rate; core/process/hashing.go gives the
// reading): jobs arrive at rate λn, each at a uniform point of ring g,
// and walk clockwise to the first node whose bin holds fewer than
// ⌈c·P/n⌉ jobs, P the jobs present counting the new one; every bin serves
// one job at rate 1. Departures move no job: a bin over the capacity after
// the present jobs fell keeps its jobs, and only takes new ones once below
// it again — what a load balancer with a hash balance factor does to the
// connections it has placed.
//
// Uniformized as SupermarketDirect: each event is an arrival with
// probability λ/(1+λ), else a uniformly random bin completes a job if it
// holds one. Some bin is below the capacity at every arrival (n bins at
// ⌈c·P/n⌉ or more would hold ≥ c·P > P − 1 jobs), so every walk ends.
//
// Stream per event: the arrival coin (Bernoulli.Flip); an arrival then
// PCG32.Uint64 for its point (two outputs, the first the high half), a
// departure PCG32.Bounded(n).

// RingCapacity is ⌈num·P/den⌉ (c/n = num/den in lowest terms), the
// capacity when P jobs are present with the new one; 2^63 when it does
// not fit (no load reaches it).
func RingCapacity(num, den, P uint64) uint64 {
	hi, lo := bits.Mul64(num, P)
	if hi >= den {
		return 1 << 63
	}
	q, r := bits.Div64(hi, lo, den)
	if r > 0 {
		q++
	}
	return min(q, 1<<63)
}

// HashRingSupermarket runs count events of the supermarket model on ring
// g with loads (the jobs per bin), arrivals by the coin arrive, c/n =
// num/den; t keeps the levels, pr counts the nodes each arrival's walk
// visited.
func HashRingSupermarket(loads []uint32, g *Ring, r *PCG32, count uint64, arrive *Bernoulli, num, den uint64, t *Tally, pr *Probes) {
	n := uint32(len(loads))
	nodes, N := g.nodes, g.n
	for ; count > 0; count-- {
		if !arrive.Flip(r) {
			if i := r.Bounded(n); loads[i] > 0 {
				t.down(uint64(loads[i]))
				loads[i]--
			}
			t.Event++
			continue
		}
		limit := RingCapacity(num, den, t.Total+1)
		i := g.first(r.Uint64())
		j := i
		b := nodes[j].bin
		k := uint64(1)
		for uint64(loads[b]) >= limit {
			if j++; j == N {
				j = 0
			}
			b = nodes[j].bin
			if k++; k > uint64(N) {
				panic("kernels: HashRingSupermarket: every bin at the capacity") // c > 1 rules it out
			}
		}
		pr.Total += k
		pr.Max = max(pr.Max, k)
		t.up(uint64(loads[b]))
		loads[b]++
		t.Event++
	}
}
