package kernels

import (
	"math/big"
	"sort"
	"testing"
)

// slowRingSupermarket is the supermarket model on a ring written out
// literally: per event the arrival coin; a departure takes a job from a
// uniform bin if it holds one; an arrival lands at a uniform point, finds
// its first node by binary search over the sorted positions, and walks
// clockwise to the first bin with load < ⌈c·P/n⌉ (P the jobs present
// counting it), computed in rationals. It fails the test if the bin
// taken is not below the capacity (the guarantee at each arrival) and
// returns the probes' total and max.
func slowRingSupermarket(t *testing.T, loads []uint32, pos []uint64, bin []uint32, r *PCG32, events uint64, arrive *Bernoulli, c *big.Rat, present *uint64) (total, most uint64) {
	n := uint32(len(loads))
	for range events {
		if !arrive.Flip(r) {
			if i := r.Bounded(n); loads[i] > 0 {
				loads[i]--
				*present--
			}
			continue
		}
		u := r.Uint64()
		P := *present + 1
		limit := new(big.Rat).Mul(c, big.NewRat(int64(P), int64(n)))
		capacity := new(big.Int).Quo(limit.Num(), limit.Denom())
		if !limit.IsInt() {
			capacity.Add(capacity, big.NewInt(1))
		}
		j := sort.Search(len(pos), func(i int) bool { return pos[i] >= u }) % len(pos)
		k := uint64(1)
		for int64(loads[bin[j]]) >= capacity.Int64() {
			j = (j + 1) % len(pos)
			k++
			if k > uint64(len(pos)) {
				t.Fatalf("no bin below the capacity %v with %d jobs present", capacity, P-1)
			}
		}
		loads[bin[j]]++
		*present++
		total += k
		most = max(most, k)
	}
	return total, most
}

// HashRingSupermarket against the literal loop, event for event: the loads,
// the jobs present, the arrivals and departures and the probes after runs
// of 1, 7 and 1000 events, on rings of 1, 7 and 100 bins with 1 and 3
// points a bin, c = 1.1 and 2, λ = 0.5 and 0.95. The literal loop also
// checks the capacity bound at every arrival.
func TestHashRingSupermarketMatchesLiteral(t *testing.T) {
	for _, tc := range []struct {
		n, v   uint32
		c      string
		lambda float64
	}{{1, 1, "1.1", 0.5}, {7, 1, "1.1", 0.95}, {7, 3, "2", 0.5}, {100, 1, "1.1", 0.95}, {100, 3, "1.25", 0.9}} {
		st := TrialStream(5, 2, LaneStructure)
		g := NewRing(&st, tc.n, tc.v)
		pos, bin := g.Nodes()
		c, _ := new(big.Rat).SetString(tc.c)
		cn := new(big.Rat).Quo(c, big.NewRat(int64(tc.n), 1))
		num, den := cn.Num().Uint64(), cn.Denom().Uint64()
		a1, err := NewBernoulli(tc.lambda / (1 + tc.lambda))
		if err != nil {
			t.Fatal(err)
		}
		a2 := a1
		fast, slow := make([]uint32, tc.n), make([]uint32, tc.n)
		r1, r2 := TrialStream(5, 2, LaneChoices), TrialStream(5, 2, LaneChoices)
		tally := NewTally(uint64(tc.n))
		var pr Probes
		var present, total, most uint64
		for _, events := range []uint64{1, 7, 1000, 1000} {
			HashRingSupermarket(fast, g, &r1, events, &a1, num, den, tally, &pr)
			tt, mm := slowRingSupermarket(t, slow, pos, bin, &r2, events, &a2, c, &present)
			total, most = total+tt, max(most, mm)
			for i := range fast {
				if fast[i] != slow[i] {
					t.Fatalf("n = %d, v = %d, c = %s: bin %d holds %d, the literal loop %d", tc.n, tc.v, tc.c, i, fast[i], slow[i])
				}
			}
			if tally.Total != present || pr.Total != total || pr.Max != most {
				t.Fatalf("n = %d, v = %d, c = %s: present %d, probes %d (max %d); literal %d, %d (max %d)", tc.n, tc.v, tc.c, tally.Total, pr.Total, pr.Max, present, total, most)
			}
			if r1.state != r2.state {
				t.Fatalf("n = %d, v = %d, c = %s: the streams parted", tc.n, tc.v, tc.c)
			}
		}
		if tally.Arrivals+tally.Departures > tally.Event || tally.Arrivals-tally.Departures != present || tally.Departures == 0 {
			t.Fatalf("n = %d: %d arrivals, %d departures in %d events, %d present", tc.n, tally.Arrivals, tally.Departures, tally.Event, present)
		}
	}
}

// RingCapacity is ⌈num·P/den⌉, exactly, and saturates past 2^63.
func TestRingCapacity(t *testing.T) {
	for _, tc := range []struct{ num, den, P, want uint64 }{
		{11, 10000, 1, 1}, {11, 10000, 10000, 11}, {11, 10000, 10001, 12}, {1, 4, 8, 2}, {1, 4, 9, 3},
		{1 << 62, 1, 4, 1 << 63}, {3, 1, 1 << 62, 1 << 63},
	} {
		if got := RingCapacity(tc.num, tc.den, tc.P); got != tc.want {
			t.Errorf("⌈%d·%d/%d⌉ = %d, want %d", tc.num, tc.P, tc.den, got, tc.want)
		}
	}
}
