package kernels

// Per-ball loops of the histogram engine. Each samples bins as uniform ranks
// (see Levels), decides the level that receives the ball exactly as the
// process of the same name on a load array decides the bin, and moves one
// bin of that level up. Results agree in distribution with the array loops,
// not draw for draw: a rank is not a bin index.
//
// Ties between equal levels go to the first sample, a uniformly random one
// in law (the samples are exchangeable), as in the array loops.

// LevelsDChoice throws count balls by d-choice. Stream: d ranks per ball.
func LevelsDChoice(lv *Levels, r *PCG32, count uint64, d int) {
	if lv.n > MaxBins {
		levelsDChoiceWide(lv, r, count, d)
		return
	}
	// n < 2^32: a block's least ranks are drawn first (32-bit ranks, as
	// fillBounded draws them), then their levels are found and moved in
	// place, so the generator's chain and the searches overlap.
	s, inc := r.state, r.inc()
	n := uint32(lv.n)
	c := lv.view()
	guide, shift, mask := lv.guide, lv.shift, uint64(1)<<lv.shift-1
	var idx [2 * stageBalls]uint32
	var least [stageBalls]uint32
	per := max(1, len(idx)/d)
	for count > 0 {
		b := int(min(count, uint64(per)))
		s = fillBounded(idx[:b*d], s, inc, n)
		if d == 2 {
			for k := range b {
				least[k] = min(idx[2*k], idx[2*k+1])
			}
		} else {
			for k := range b {
				lowest := idx[k*d]
				for _, x := range idx[k*d+1 : k*d+d] {
					lowest = min(lowest, x)
				}
				least[k] = lowest
			}
		}
		for _, lowest := range least[:b] {
			r := uint64(lowest)
			i := int(guide[r>>shift])
			for c[i] <= r {
				i++
			}
			c[i]--
			if c[i]&mask == 0 || i == len(c)-1 { // rare (an emptied level has c[i] = 0 too): see afterMove
				c = lv.afterMove(c, i)
			}
		}
		count -= uint64(b)
	}
	r.state = s
}

func levelsDChoiceWide(lv *Levels, r *PCG32, count uint64, d int) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var lowest, x uint64
		s, lowest = rank(s, inc, n)
		for k := 1; k < d; k++ {
			s, x = rank(s, inc, n)
			lowest = min(lowest, x)
		}
		lv.Move(lv.Level(lowest))
	}
	r.state = s
}

// LevelsTwoThinning throws count balls by Two-Thinning with a fixed
// acceptance limit on loads (see TwoThinning). Stream: a rank, and a second
// only when the first bin is rejected.
func LevelsTwoThinning(lv *Levels, r *PCG32, count uint64, limit uint64) {
	s, inc, n := r.state, r.inc(), lv.n
	for ; count > 0; count-- {
		var x uint64
		s, x = rank(s, inc, n)
		i := lv.Level(x)
		if lv.lo+uint64(i) >= limit {
			s, x = rank(s, inc, n)
			i = lv.Level(x)
		}
		lv.Move(i)
	}
	r.state = s
}

// LevelsGComp throws count balls by the g-bounded comparison with rule (see
// GComp). Stream: two ranks per ball from r; one output per ball from noise
// (its top bit is the coin of GRandom).
func LevelsGComp(lv *Levels, r, noise *PCG32, count uint64, g uint64, rule GRule) {
	s, inc, n := r.state, r.inc(), lv.n
	ns, ninc := noise.state, noise.inc()
	for ; count > 0; count-- {
		var x, y uint64
		var c uint32
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		ns, c = step(ns, ninc)
		i, j := lv.Level(x), lv.Level(y)
		pickJ := j < i
		if uint64(absDiff(i, j)) <= g {
			switch rule {
			case GHeavier:
				pickJ = j > i
			case GRandom:
				pickJ = c >= 1<<31
			case GMaxTarget:
				// The raise x + 1 − max is non-decreasing in the load: the
				// heavier, as for the array loop.
				top := lv.Len() - 1
				ri, rj := max(0, i+1-top), max(0, j+1-top)
				pickJ = rj > ri || (rj == ri && j > i)
			}
		}
		if pickJ {
			i = j
		}
		lv.Move(i)
	}
	r.state, noise.state = s, ns
}

// LevelsSigmaNoisyLoad throws count balls by σ-Noisy-Load. Stream: two
// ranks per ball from r; two normals per ball from noise.
func LevelsSigmaNoisyLoad(lv *Levels, r, noise *PCG32, count uint64, sigma float64) {
	s, inc, n := r.state, r.inc(), lv.n
	ns, ninc := noise.state, noise.inc()
	for ; count > 0; count-- {
		var x, y uint64
		var zi, zj float64
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		ns, zi = normZig(ns, ninc)
		ns, zj = normZig(ns, ninc)
		i, j := lv.Level(x), lv.Level(y)
		if sigma*(zj-zi) < float64(i-j) {
			i = j
		}
		lv.Move(i)
	}
	r.state, noise.state = s, ns
}

// LevelsRhoNoisyComp throws count balls by ρ-Noisy-Comp with the coins of
// table. Stream: two ranks per ball from r; the coin from noise.
func LevelsRhoNoisyComp(lv *Levels, r, noise *PCG32, count uint64, table *RhoTable) {
	s, inc, n := r.state, r.inc(), lv.n
	ns, ninc := noise.state, noise.inc()
	coins := table.coins
	for ; count > 0; count-- {
		var x, y uint64
		var c uint32
		s, x = rank(s, inc, n)
		s, y = rank(s, inc, n)
		ns, c = step(ns, ninc)
		i, j := lv.Level(x), lv.Level(y)
		d := absDiff(i, j)
		var wrong bool
		if d < len(coins) {
			coin := &coins[d]
			wrong = c < coin.hi
			if c == coin.hi {
				ns, wrong = coin.flipTail(ns, ninc)
			}
		} else if table.beyond {
			ns, wrong = flipFloatFrom(c, ns, ninc, table.rho.Wrong(float64(d)))
		}
		if (j < i) != wrong {
			i = j
		}
		lv.Move(i)
	}
	r.state, noise.state = s, ns
}
