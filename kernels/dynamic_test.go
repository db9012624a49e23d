package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// The supermarket's event loops against slow literal loops drawing the same
// stream (event for event: the loads or the sorted loads, and the tally's
// sums recounted from them after every event), and the deletions against
// literal ones.

type literalPlacement struct {
	lambda float64
	pl     Placement
}

// literalEvent is one event of the supermarket model as its definition
// reads, drawing from r as the file comment of dynamic.go says: the arrival
// coin, then the β coin (0 < β < 1 only), then the samples. pick maps a
// draw to a bin of loads: loads[pick(x)].
func literalEvent(r *PCG32, lp literalPlacement, loads []int, draw func() uint64, least func(a, b uint64) uint64) {
	arrive, _ := NewBernoulli(lp.lambda / (1 + lp.lambda))
	beta, _ := NewBernoulli(lp.pl.Beta)
	if !arrive.Flip(r) {
		if i := draw(); loads[i] > 0 {
			loads[i]--
		}
		return
	}
	two := lp.pl.D > 1 && lp.pl.Beta > 0
	if two && lp.pl.Beta < 1 {
		two = beta.Flip(r)
	}
	best := draw()
	if two {
		for k := 1; k < lp.pl.D; k++ {
			best = least(best, draw())
		}
	}
	loads[best]++
}

// atLeast recounts S_k from the loads.
func atLeast(loads []int) []uint64 {
	S := []uint64{uint64(len(loads))}
	for k := 1; ; k++ {
		c := uint64(0)
		for _, l := range loads {
			if l >= k {
				c++
			}
		}
		if c == 0 {
			return append(S, 0)
		}
		S = append(S, c)
	}
}

func literalCases() []literalPlacement {
	return []literalPlacement{
		{0.5, Placement{D: 1, Beta: 1}}, {0.9, Placement{D: 2, Beta: 1}}, {0.95, Placement{D: 3, Beta: 1}},
		{0.8, Placement{D: 2, Beta: 0.5}}, {0.7, Placement{D: 2, Beta: 0}}, {0.99, Placement{D: 2, Beta: 1}},
	}
}

func TestSupermarketDirectIsLiteral(t *testing.T) {
	for _, lp := range literalCases() {
		for _, n := range []int{1, 3, 50} {
			t.Run(fmt.Sprintf("%+v/n=%d", lp, n), func(t *testing.T) {
				sm, _ := NewSupermarket(lp.lambda, lp.pl)
				fast, slow := NewPCG32(4, 5), NewPCG32(4, 5)
				loads := make([]uint32, n)
				want := make([]int, n)
				tally := NewTally(uint64(n))
				sums := []float64{}
				for e := range 3000 {
					SupermarketDirect(loads, &fast, 1, sm, tally)
					literalEvent(&slow, lp, want, func() uint64 { return uint64(slow.Bounded(uint32(n))) },
						func(a, b uint64) uint64 {
							if want[b] < want[a] {
								return b
							}
							return a
						})
					for i := range n {
						if int(loads[i]) != want[i] {
							t.Fatalf("event %d: bin %d holds %d, the literal loop %d", e, i, loads[i], want[i])
						}
					}
					if S := atLeast(want); !slices.Equal(S, tally.S) {
						t.Fatalf("event %d: tally %v, recount %v", e, tally.S, S)
					}
					sums = addAtLeast(sums, atLeast(want)) // the state after the event
				}
				checkSums(t, tally, sums)
			})
		}
	}
}

// addAtLeast adds S_1, S_2, … to sums[0], sums[1], …: the time sums count
// the state after each event (kernels.Tally).
func addAtLeast(sums []float64, S []uint64) []float64 {
	for k := 1; k < len(S); k++ {
		if k > len(sums) {
			sums = append(sums, 0)
		}
		sums[k-1] += float64(S[k])
	}
	return sums
}

func checkSums(t *testing.T, tally *Tally, want []float64) {
	t.Helper()
	got := tally.TakeAcc()
	for len(got) > len(want) && got[len(got)-1] == 0 {
		got = got[:len(got)-1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("time sums %v, recounted %v", got, want)
	}
	if tally.Total != tally.Arrivals-tally.Departures {
		t.Errorf("total %d ≠ %d arrivals − %d departures", tally.Total, tally.Arrivals, tally.Departures)
	}
}

// The histogram loop against the loads sorted from the heaviest: rank x is
// sorted[x], the least loaded of the samples the largest rank.
func TestSupermarketLevelsIsLiteral(t *testing.T) {
	for _, wide := range []bool{false, true} {
		for _, lp := range literalCases() {
			for _, n := range []int{1, 4, 60} {
				t.Run(fmt.Sprintf("%+v/n=%d/wide=%v", lp, n, wide), func(t *testing.T) {
					sm, _ := NewSupermarket(lp.lambda, lp.pl)
					fast, slow := NewPCG32(6, 7), NewPCG32(6, 7)
					sorted := make([]int, n) // descending
					tally := NewTally(uint64(n))
					sums := []float64{}
					for e := range 3000 {
						draw := func() uint64 { return uint64(slow.Bounded(uint32(n))) }
						if wide {
							supermarketLevelsWide(&fast, 1, sm, tally)
							draw = func() uint64 { return slow.Bounded64(uint64(n)) }
						} else {
							SupermarketLevels(&fast, 1, sm, tally)
						}
						literalEvent(&slow, lp, sorted, draw, func(a, b uint64) uint64 { return max(a, b) })
						slices.SortFunc(sorted, func(a, b int) int { return b - a })
						if S := atLeast(sorted); !slices.Equal(S, tally.S) {
							t.Fatalf("event %d: tally %v, literal %v", e, tally.S, S)
						}
						sums = addAtLeast(sums, atLeast(sorted))
					}
					checkSums(t, tally, sums)
				})
			}
		}
	}
}

// levelOf's two searches agree with a plain count.
func TestLevelOf(t *testing.T) {
	for _, top := range []int{0, 3, 22, 23, 24, 40, 200} {
		S := []uint64{1000}
		for k := 1; k <= top; k++ {
			S = append(S, uint64(1000-k*999/max(top, 1)))
		}
		S = append(S, 0)
		for x := uint64(0); x < 1000; x++ {
			want := uint64(0)
			for k := 1; k < len(S); k++ {
				if S[k] > x {
					want = uint64(k)
				}
			}
			if got := levelOf(S, x); got != want {
				t.Fatalf("top %d, rank %d: level %d, want %d", top, x, got, want)
			}
		}
	}
}

// MoveDown keeps Levels' invariants: after any mix of moves up and down
// (opening lower levels and emptying the top), every rank's level and the
// counts equal a recount from a literal vector of loads.
func TestMoveDownIsLiteral(t *testing.T) {
	for _, n := range []uint64{1, 5, 64, 65, 200, 5000} {
		lv := NewLevels(n)
		loads := make([]uint64, n) // ascending: rank r's bin
		r := NewPCG32(n, 3)
		for step := range 6000 {
			r2 := r.Bounded(3)
			i := int(r.Bounded64(n))
			switch {
			case r2 < 2 || loads[i] == 0: // up
				lv.Move(lv.Level(uint64(i)))
				loads[i]++
			default:
				lv.MoveDown(lv.Level(uint64(i)))
				loads[i]--
			}
			slices.Sort(loads)
			if step%97 == 0 || n <= 65 {
				checkLevels(t, lv, loads)
			}
		}
	}
}

func checkLevels(t *testing.T, lv *Levels, loads []uint64) {
	t.Helper()
	if lv.Min() != loads[0] || lv.Max() != loads[len(loads)-1] {
		t.Fatalf("min/max %d/%d, want %d/%d", lv.Min(), lv.Max(), loads[0], loads[len(loads)-1])
	}
	for x, l := range loads {
		if got := lv.Min() + uint64(lv.Level(uint64(x))); got != l {
			t.Fatalf("rank %d: load %d, want %d", x, got, l)
		}
	}
	for i := range lv.Len() {
		c := uint64(0)
		for _, l := range loads {
			if l == lv.Min()+uint64(i) {
				c++
			}
		}
		if lv.Count(i) != c {
			t.Fatalf("level %d: count %d, want %d", i, lv.Count(i), c)
		}
	}
}

// The deletions pick from their laws: DeleteBall a bin with probability ∝
// load, DeleteBin a uniform non-empty bin; each through its rejection
// draws and through its exact fallback (a load vector where rejection
// almost always runs out), checked by χ² on the bin removed from.
func TestDeletionsLaw(t *testing.T) {
	cases := []struct {
		name  string
		loads []uint32
		max   uint32
		tries uint64 // 0: deleteTries
	}{
		{"rejection", []uint32{3, 0, 1, 5, 2}, 5, 0},
		{"sparse", append(make([]uint32, 4000), 1, 2), 2, 0},
		{"fallback", append(make([]uint32, 4000), 1, 2), 1 << 20, 64},
	}
	for _, c := range cases {
		for _, byBall := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/ball=%v", c.name, byBall), func(t *testing.T) {
				r := NewPCG32(1, 2)
				total, busy := 0.0, 0.0
				for _, l := range c.loads {
					total += float64(l)
					if l > 0 {
						busy++
					}
				}
				counts := make([]float64, len(c.loads))
				const trials = 20000
				for range trials {
					loads := slices.Clone(c.loads)
					tries := c.tries
					if tries == 0 {
						tries = deleteTries(len(loads), uint64(c.max), uint64(total))
					}
					if byBall {
						deleteBall(loads, &r, c.max, uint64(total), tries)
					} else {
						deleteBin(loads, &r, tries)
					}
					for i := range loads {
						if loads[i] != c.loads[i] {
							counts[i]++
						}
					}
				}
				chi, df := 0.0, -1
				for i, l := range c.loads {
					p := 0.0
					switch {
					case byBall:
						p = float64(l) / total
					case l > 0:
						p = 1 / busy
					}
					if p == 0 {
						if counts[i] > 0 {
							t.Fatalf("bin %d of load %d lost a ball", i, l)
						}
						continue
					}
					e := p * trials
					chi += (counts[i] - e) * (counts[i] - e) / e
					df++
				}
				// χ² on df ≤ 4 degrees of freedom: 25 is beyond p = 10^-4.
				if chi > 25 {
					t.Errorf("χ² = %.1f on %d df", chi, df)
				}
			})
		}
	}
}
