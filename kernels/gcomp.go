package kernels

// g-bounded comparisons (Los and Sauerwald, "Balanced Allocations with the
// Choice of Noise", §2): a ball samples two bins i, j uniformly; if their
// loads differ by more than g the lighter gets the ball, otherwise the rule
// decides. Rules:
//
//	GHeavier   the heavier of the two (g-Adv-Comp with the greedy-reverse
//	           adversary, Nadiradze's g-Bounded process)
//	GRandom    a uniformly random one of the two (g-Myopic-Comp; also
//	           g-Adv-Comp with the random adversary)
//	GMaxTarget the one whose allocation raises the current maximum load the
//	           most, ties to the heavier. The raise x + w − max is
//	           non-decreasing in the load x, so this is always the heavier:
//	           the same choices as GHeavier, kept as its own rule because a
//	           user asked for it by name.
//
// Equal loads count as "the heavier" for i, the first sample, which is a
// uniformly random one of the two in law (the samples are exchangeable).
// Random coins come from a second stream, `noise`, so that the bins drawn
// are those of two-choice for the same seed: at g = 0, GHeavier is
// two-choice ball for ball.

// GRule says who decides a comparison within g.
type GRule int

const (
	GHeavier GRule = iota
	GRandom
	GMaxTarget
)

// GComp throws count balls by the g-bounded comparison with rule and returns
// the new maximum load.
//
// Stream: two PCG32.Bounded(n) per ball from r; for GRandom one output per
// ball from noise (its top bit is the coin), drawn whether or not the loads
// are within g. 1 ≤ len(loads) ≤ MaxBins.
func GComp[L Load](loads []L, r, noise *PCG32, count uint64, g uint64, rule GRule, maxLoad L) L {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	var coins [stageBalls]uint32
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		if rule == GRandom {
			ns = fillOutputs(coins[:b], ns, ninc)
		}
		// One loop per rule; the decision is computed without branches, as
		// loads within g are a coin flip for the branch predictor.
		switch rule {
		case GHeavier:
			for k := range b {
				i, j := idx[2*k], idx[2*k+1]
				li, lj := loads[i], loads[j]
				w := b2u(uint64(absDiff(li, lj)) <= g)
				c := (w & b2u(lj > li)) | (^w & b2u(lj < li))
				i, li = choose(c, i, j), choose(c, li, lj)
				li++
				loads[i] = li
				maxLoad = max(maxLoad, li)
			}
		case GRandom:
			for k := range b {
				i, j := idx[2*k], idx[2*k+1]
				li, lj := loads[i], loads[j]
				w := b2u(uint64(absDiff(li, lj)) <= g)
				c := (w & uint8(coins[k]>>31)) | (^w & b2u(lj < li))
				i, li = choose(c, i, j), choose(c, li, lj)
				li++
				loads[i] = li
				maxLoad = max(maxLoad, li)
			}
		case GMaxTarget:
			for k := range b {
				i, j := idx[2*k], idx[2*k+1]
				li, lj := loads[i], loads[j]
				pickJ := lj < li // the lighter
				if uint64(absDiff(li, lj)) <= g {
					// raise(x) = max(0, x + 1 − max); the larger raise wins,
					// ties to the heavier (then to i on equal loads).
					ri, rj := raise(li, maxLoad), raise(lj, maxLoad)
					pickJ = rj > ri || (rj == ri && lj > li)
				}
				if pickJ {
					i, li = j, lj
				}
				li++
				loads[i] = li
				maxLoad = max(maxLoad, li)
			}
		}
		count -= uint64(b)
	}
	r.state, noise.state = s, ns
	return maxLoad
}

// choose returns b when c is 1 and a when c is 0, by masks: for a decision
// that is a coin flip to the branch predictor, where the compiler would
// otherwise keep a branch.
func choose[T Load | ~uint32](c uint8, a, b T) T {
	m := -T(c)
	return a&^m | b&m
}

// b2u is 1 for true and 0 for false, compiled to a SETcc.
func b2u(b bool) uint8 {
	var x uint8
	if b {
		x = 1
	}
	return x
}

func absDiff[L loadValue | ~int](a, b L) L {
	if a > b {
		return a - b
	}
	return b - a
}

func raise[L Load](x, top L) L {
	if x+1 > top {
		return x + 1 - top
	}
	return 0
}

// GCompWeighted is GComp on real loads, ball k weighing w[k]; the raise of
// GMaxTarget is x + w[k] − max.
func GCompWeighted(loads []float64, r, noise *PCG32, w []float64, g float64, rule GRule, maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	var idx [2 * stageBalls]uint32
	var coins [stageBalls]uint32
	for len(w) > 0 {
		b := min(len(w), stageBalls)
		s = fillBounded(idx[:2*b], s, inc, n)
		prefetchLoads(loads, idx[:2*b])
		if rule == GRandom {
			ns = fillOutputs(coins[:b], ns, ninc)
		}
		for k, wk := range w[:b] {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			pickJ := lj < li
			if li-lj <= g && lj-li <= g {
				switch rule {
				case GHeavier:
					pickJ = lj > li
				case GRandom:
					pickJ = coins[k] >= 1<<31
				case GMaxTarget:
					ri, rj := max(0, li+wk-maxLoad), max(0, lj+wk-maxLoad)
					pickJ = rj > ri || (rj == ri && lj > li)
				}
			}
			if pickJ {
				i, li = j, lj
			}
			li += wk
			loads[i] = li
			maxLoad = max(maxLoad, li)
		}
		w = w[b:]
	}
	r.state, noise.state = s, ns
	return maxLoad
}
