package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// drawsCase is one combination of the options of Draws.
type drawsCase struct {
	index, random, distinct bool
	weights                 func(n int) []uint64 // nil: uniform
}

func (c drawsCase) String() string {
	w := "uniform"
	if c.weights != nil {
		w = "alias"
	}
	return fmt.Sprintf("index=%v,random=%v,distinct=%v,%s", c.index, c.random, c.distinct, w)
}

func zipfish(n int) []uint64 {
	w := make([]uint64, n)
	for i := range w {
		w[i] = uint64(1000 / (i + 1))
	}
	return w
}

func drawsCases() []drawsCase {
	var cs []drawsCase
	for _, w := range []func(int) []uint64{nil, zipfish} {
		for _, distinct := range []bool{false, true} {
			cs = append(cs, drawsCase{false, false, distinct, w}, drawsCase{true, false, distinct, w})
			if distinct && w != nil {
				cs = append(cs, drawsCase{false, true, distinct, w})
			}
		}
	}
	return cs
}

func (c drawsCase) alias(t *testing.T, n int) *Alias {
	if c.weights == nil {
		return nil
	}
	a, err := NewAlias(c.weights(n))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// refSamples draws one ball's d samples literally, one PCG32 call at a time.
func refSamples(r *PCG32, n, d int, distinct bool, a *Alias) []uint32 {
	var out []uint32
	for range d {
		for {
			var x uint32
			if a != nil {
				x = a.Draw(r)
			} else {
				x = r.Bounded(uint32(n))
			}
			if !distinct || !slices.Contains(out, x) { // a repeat is drawn again
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// refPick scans the samples in order, keeping the least loaded: ties to the
// lowest index, or by an explicit uniform choice (the j-th tied sample met
// replaces the kept one with probability 1/j), or to the first.
func refPick(r *PCG32, view []uint32, samples []uint32, c drawsCase) uint32 {
	best, tied := samples[0], uint32(1)
	for _, j := range samples[1:] {
		switch {
		case view[j] < view[best]:
			best, tied = j, 1
		case view[j] == view[best] && c.index:
			best = min(best, j)
		case view[j] == view[best] && c.random:
			tied++
			if r.Bounded(tied) == 0 {
				best = j
			}
		}
	}
	return best
}

// refDraws is the whole process literally: d-choice (coin nil) or (1+β),
// decisions on the loads or, with b > 0, on a copy taken at each batch's start.
func refDraws(loads []uint32, r *PCG32, count uint64, d int, coin *Bernoulli, b uint64, c drawsCase, a *Alias) {
	frozen := loads // unbatched: the loads themselves
	if b > 0 {
		frozen = slices.Clone(loads)
	}
	for t := range count {
		if b > 0 && t%b == 0 {
			copy(frozen, loads)
		}
		two := true
		if coin != nil {
			two = coin.Flip(r)
		}
		s := refSamples(r, len(loads), d, c.distinct, a)
		i := s[0]
		if two {
			i = refPick(r, frozen, s, c)
		}
		loads[i]++
	}
}

// The option loops against the literal process, ball for ball (loads and
// the generator's state), d-choice and (1+β), unbatched and batched, in
// calls that stop mid-batch; small n, where ties are common, and an n past
// the L2 cache, where the default loops stage.
func TestDrawsLoopsMatchReference(t *testing.T) {
	coin, err := NewBernoulli(0.4)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 10, 200, 1 << 20} {
		for _, c := range drawsCases() {
			for _, d := range []int{1, 2, 3, 5} {
				if c.distinct && d > n || n == 1<<20 && (d > 2 || c.distinct) {
					continue
				}
				for _, b := range []uint64{0, 1, 3, 64} {
					if n == 1<<20 && b > 0 && b < 64 {
						continue // the literal loop copies the loads every batch
					}
					for _, withCoin := range []bool{false, true} {
						if withCoin && d != 2 {
							continue
						}
						name := fmt.Sprintf("n=%d/%v/d=%d/b=%d/coin=%v", n, c, d, b, withCoin)
						m := uint64(3000)
						if n == 1<<20 {
							m = 20000
						}
						a := c.alias(t, n)
						fast, slow := make([]uint32, n), make([]uint32, n)
						rf, rs := NewPCG32(uint64(n), uint64(d)), NewPCG32(uint64(n), uint64(d))
						o := NewDraws(d, c.index, c.random, c.distinct, a)
						var bt *Batch[uint32]
						if b > 0 {
							bt = NewBatch[uint32](n, b, false)
						}
						var maxLoad uint32
						for done := uint64(0); done < m; done += 777 {
							k := min(777, m-done)
							switch {
							case withCoin && b > 0:
								maxLoad = BatchedOnePlusBetaDraws(fast, &rf, k, &coin, o, bt, maxLoad)
							case withCoin:
								maxLoad = OnePlusBetaDraws(fast, &rf, k, &coin, o, maxLoad)
							case b > 0:
								maxLoad = BatchedDChoiceDraws(fast, &rf, k, o, bt, maxLoad)
							default:
								maxLoad = DChoiceDraws(fast, &rf, k, o, maxLoad)
							}
						}
						var cp *Bernoulli
						if withCoin {
							cp = &coin
						}
						refDraws(slow, &rs, m, d, cp, b, c, a)
						if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
							t.Fatalf("%s: the option loop differs from the literal one", name)
						}
					}
				}
			}
		}
	}
}

// With the defaults' options (uniform, with replacement, the first least
// loaded), the option loops are the default loops ball for ball: the same
// stream and the same decisions.
func TestDrawsDefaultIsDefaultLoop(t *testing.T) {
	coin, err := NewBernoulli(0.3)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 100} {
		for _, d := range []int{1, 2, 3} {
			const m = 5000
			a, b := make([]uint32, n), make([]uint32, n)
			ra, rb := NewPCG32(7, uint64(n)), NewPCG32(7, uint64(n))
			DChoiceDraws(a, &ra, m, NewDraws(d, false, false, false, nil), 0)
			DChoice(b, &rb, m, d, 0)
			if !slices.Equal(a, b) || ra != rb {
				t.Fatalf("n=%d d=%d: DChoiceDraws with default options is not DChoice", n, d)
			}
			ba, bb := NewBatch[uint32](n, 7, false), NewBatch[uint32](n, 7, false)
			BatchedDChoiceDraws(a, &ra, m, NewDraws(d, false, false, false, nil), ba, 0)
			BatchedDChoice(b, &rb, m, d, bb, 0)
			if !slices.Equal(a, b) || ra != rb {
				t.Fatalf("n=%d d=%d: BatchedDChoiceDraws with default options is not BatchedDChoice", n, d)
			}
		}
		a, b := make([]uint32, n), make([]uint32, n)
		ra, rb := NewPCG32(8, uint64(n)), NewPCG32(8, uint64(n))
		c1, c2 := coin, coin
		OnePlusBetaDraws(a, &ra, 5000, &c1, NewDraws(2, false, false, false, nil), 0)
		OnePlusBeta(b, &rb, 5000, &c2, 0)
		if !slices.Equal(a, b) || ra != rb {
			t.Fatalf("n=%d: OnePlusBetaDraws with default options is not OnePlusBeta", n)
		}
		ba, bb := NewBatch[uint32](n, 5, false), NewBatch[uint32](n, 5, false)
		BatchedOnePlusBetaDraws(a, &ra, 5000, &c1, NewDraws(2, false, false, false, nil), ba, 0)
		BatchedOnePlusBeta(b, &rb, 5000, &c2, bb, 0)
		if !slices.Equal(a, b) || ra != rb {
			t.Fatalf("n=%d: BatchedOnePlusBetaDraws with default options is not BatchedOnePlusBeta", n)
		}
	}
}

// levelsState is a Levels' counts from its least load, for comparisons.
func levelsState(lv *Levels) []uint64 {
	out := []uint64{lv.Min()}
	for i := range lv.Len() {
		out = append(out, lv.Count(i))
	}
	return out
}

// The level loops of --distinct against literal ones: one PCG32 call per
// rank, a repeat drawn again, the least rank's level moved.
func TestLevelsDistinctMatchReference(t *testing.T) {
	coin, err := NewBernoulli(0.6)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 10, 50} {
		for _, d := range []int{1, 2, 3, 5} {
			if d > n {
				continue
			}
			for _, withCoin := range []bool{false, true} {
				if withCoin && d != 2 {
					continue
				}
				const m = 3000
				fast, slow := NewLevels(uint64(n)), NewLevels(uint64(n))
				rf, rs := NewPCG32(uint64(n), uint64(d)), NewPCG32(uint64(n), uint64(d))
				c1, c2 := coin, coin
				for done := 0; done < m; done += 700 {
					k := uint64(min(700, m-done))
					if withCoin {
						LevelsOnePlusBetaDistinct(fast, &rf, k, &c1)
					} else {
						LevelsDChoiceDistinct(fast, &rf, k, make([]uint64, d))
					}
				}
				for range m {
					two := !withCoin || c2.Flip(&rs)
					var ranks []uint32
					for range d {
						x := rs.Bounded(uint32(n))
						for slices.Contains(ranks, x) {
							x = rs.Bounded(uint32(n))
						}
						ranks = append(ranks, x)
					}
					x := ranks[0]
					if two {
						x = slices.Min(ranks)
					}
					slow.Move(slow.Level(uint64(x)))
				}
				if !slices.Equal(levelsState(fast), levelsState(slow)) || rf != rs {
					t.Fatalf("n=%d d=%d coin=%v: fast %v, slow %v", n, d, withCoin, levelsState(fast), levelsState(slow))
				}
			}
		}
	}
}

// refQuantileDraws is refQuantile with the samples of refSamples (a law,
// and a repeated second sample drawn again).
func refQuantileDraws(loads []uint32, r *PCG32, count, k uint64, coin *Bernoulli, distinct bool, a *Alias) {
	for range count {
		b, above, at := refBoundary(loads, k)
		use := coin == nil || coin.Flip(r)
		s := refSamples(r, len(loads), 2, distinct, a)
		i, j, x := s[0], s[1], r.Bounded(uint32(at))
		if use && (loads[i] > b || (loads[i] == b && uint64(x) < k-above)) {
			i = j
		}
		loads[i]++
	}
}

// QuantileDraws against the literal loop, ball for ball; with uniform
// samples with replacement it is Quantile itself.
func TestQuantileDrawsMatchReference(t *testing.T) {
	coin, err := NewBernoulli(0.6)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3, 7, 50} {
		for _, k := range []uint64{1, uint64(n) / 2, uint64(n)} {
			for _, c := range drawsCases() {
				if c.index || c.random {
					continue // quantile compares no loads
				}
				for _, withCoin := range []bool{false, true} {
					const m = 3000
					var cf, cs *Bernoulli
					if withCoin {
						c1, c2 := coin, coin
						cf, cs = &c1, &c2
					}
					a := c.alias(t, n)
					fast, slow := make([]uint32, n), make([]uint32, n)
					rf, rs := NewPCG32(uint64(n), k), NewPCG32(uint64(n), k)
					q, o := NewQuantileCounts(uint64(n), k), NewDraws(2, false, false, c.distinct, a)
					var maxLoad uint32
					for done := uint64(0); done < m; done += 701 {
						maxLoad = QuantileDraws(fast, &rf, min(701, m-done), q, cf, o, maxLoad)
					}
					refQuantileDraws(slow, &rs, m, k, cs, c.distinct, a)
					if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
						t.Fatalf("n=%d k=%d %v coin=%v: fast %v, slow %v", n, k, c, withCoin, fast, slow)
					}
				}
			}
		}
	}
	a, b := make([]uint32, 20), make([]uint32, 20)
	ra, rb := NewPCG32(3, 4), NewPCG32(3, 4)
	QuantileDraws(a, &ra, 5000, NewQuantileCounts(20, 7), nil, NewDraws(2, false, false, false, nil), 0)
	Quantile(b, &rb, 5000, NewQuantileCounts(20, 7), nil, 0)
	if !slices.Equal(a, b) || ra != rb {
		t.Fatal("QuantileDraws with default options is not Quantile")
	}
}

// LevelsQuantileDistinct against a literal loop.
func TestLevelsQuantileDistinctMatchReference(t *testing.T) {
	for _, n := range []uint64{2, 3, 10} {
		for _, k := range []uint64{1, n / 2, n} {
			fast, slow := NewLevels(n), NewLevels(n)
			rf, rs := NewPCG32(n, k), NewPCG32(n, k)
			LevelsQuantileDistinct(fast, &rf, 3000, k, nil)
			for range 3000 {
				x, y := rs.Bounded(uint32(n)), rs.Bounded(uint32(n))
				for y == x {
					y = rs.Bounded(uint32(n))
				}
				if uint64(x) >= n-k {
					x = y
				}
				slow.Move(slow.Level(uint64(x)))
			}
			if !slices.Equal(levelsState(fast), levelsState(slow)) || rf != rs {
				t.Fatalf("n=%d k=%d: fast %v, slow %v", n, k, levelsState(fast), levelsState(slow))
			}
		}
	}
}
