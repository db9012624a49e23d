package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// slowAdversary is the literal loop: []int loads, the maximum rescanned
// after every operation, each draw by PCG32.Bounded in the documented
// order. w = 0 is Greedy; w ≥ 1 the modulated rule of width w; w =
// oneChoice the first of the two bins.
const oneChoice = ^uint32(0)

type slowAdversary struct {
	loads   []int
	where   []int
	present int
	maxGapN int64   // the largest n·max − present after any operation
	top     int     // the largest maximum load
	trace   []int64 // n·max − present after each operation
}

func (a *slowAdversary) run(ops []uint32, r, coins *PCG32, w uint32) {
	n := len(a.loads)
	for _, op := range ops {
		if op == AdvInsert {
			i := int(r.Bounded(uint32(n)))
			j := int(r.Bounded(uint32(n)))
			var toI bool
			if w == oneChoice {
				toI = true
			} else if w == 0 {
				toI = a.loads[i] <= a.loads[j] // the less loaded; a tie to the first
			} else {
				c := int(coins.Bounded(2 * w))
				// to i with probability clamp(1/2 + (load j − load i)/(2w), 0, 1)
				toI = c < int(w)+a.loads[j]-a.loads[i]
			}
			b := j
			if toI {
				b = i
			}
			a.loads[b]++
			a.where = append(a.where, b)
			a.present++
		} else {
			a.loads[a.where[op-1]]--
			a.present--
		}
		a.top = max(a.top, slices.Max(a.loads))
		g := int64(n)*int64(slices.Max(a.loads)) - int64(a.present)
		a.trace = append(a.trace, g)
		a.maxGapN = max(a.maxGapN, g)
	}
}

// randomOps is a valid sequence: each step an insertion with probability
// pIns (always when nothing is present), else the deletion of a uniformly
// random present ball.
func randomOps(rng *rand.Rand, steps int, pIns float64) ([]uint32, uint32) {
	var ops []uint32
	var present []uint32
	var ins uint32
	for range steps {
		if len(present) == 0 || rng.Float64() < pIns {
			ops = append(ops, AdvInsert)
			ins++
			present = append(present, ins)
			continue
		}
		k := rng.IntN(len(present))
		ops = append(ops, present[k])
		present[k] = present[len(present)-1]
		present = present[:len(present)-1]
	}
	return ops, ins
}

// TestAdversaryMatchesSlowLoop runs Greedy and the modulated rule against
// the literal loop ball for ball: the same bins, loads, maximum and largest
// gap after every operation, whole and one operation a call.
func TestAdversaryMatchesSlowLoop(t *testing.T) {
	steps := 20000
	if testing.Short() {
		steps = 5000
	}
	for _, n := range []int{1, 2, 4, 7, AdvScanBins, AdvScanBins + 1, 1000, 1_000_000} {
		for _, w := range []uint32{0, 1, 3, 64, oneChoice} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(w)))
			k := steps
			if n > 1000 {
				k = 150 // the literal loop rescans n loads an operation
			}
			ops, ins := randomOps(rng, k, 0.6)
			slow := &slowAdversary{loads: make([]int, n)}
			rs, cs := NewPCG32(uint64(n)+7, uint64(w)), NewPCG32(5, uint64(n))
			slow.run(ops, &rs, &cs, w)

			for _, perOp := range []bool{false, true} {
				fast := NewAdversary(n, ins)
				rf, cf := NewPCG32(uint64(n)+7, uint64(w)), NewPCG32(5, uint64(n))
				chunk := len(ops)
				if perOp {
					chunk = 1
				}
				for k := 0; k < len(ops); k += chunk {
					part := ops[k:min(k+chunk, len(ops))]
					switch w {
					case 0:
						fast.Greedy(part, &rf)
					case oneChoice:
						fast.OneChoice(part, &rf)
					default:
						fast.Modulated(part, &rf, &cf, w)
					}
					if perOp {
						if g := int64(n)*int64(fast.Max) - int64(fast.Present); g != slow.trace[k] {
							t.Fatalf("n=%d w=%d op %d: n·max − present %d, slow loop %d", n, w, k, g, slow.trace[k])
						}
					}
				}
				if rf != rs || cf != cs {
					t.Fatalf("n=%d w=%d: generator states differ after the run", n, w)
				}
				for k, b := range slow.where {
					if int(fast.Where[k]) != b {
						t.Fatalf("n=%d w=%d: ball %d in bin %d, slow loop %d", n, w, k+1, fast.Where[k], b)
					}
				}
				for b, l := range slow.loads {
					if int(fast.Loads[b]) != l {
						t.Fatalf("n=%d w=%d: bin %d load %d, slow loop %d", n, w, b, fast.Loads[b], l)
					}
				}
				if int(fast.Top) != slow.top {
					t.Fatalf("n=%d w=%d: largest maximum load %d, slow loop %d", n, w, fast.Top, slow.top)
				}
				if fast.MaxGapN != slow.maxGapN || int(fast.Present) != slow.present {
					t.Fatalf("n=%d w=%d: largest n·gap %d present %d, slow loop %d %d", n, w, fast.MaxGapN, fast.Present, slow.maxGapN, slow.present)
				}
				if (fast.Level == nil) != (n <= AdvScanBins) {
					t.Fatalf("n=%d: level counts kept %v", n, fast.Level != nil)
				}
				var levels uint32
				if fast.Level == nil {
					levels = uint32(n)
				}
				for l, c := range fast.Level {
					levels += c
					if c > 0 && uint32(l) > fast.Max {
						t.Fatalf("n=%d w=%d: %d bins at level %d above the maximum %d", n, w, c, l, fast.Max)
					}
				}
				if levels != uint32(n) {
					t.Fatalf("n=%d w=%d: level counts sum to %d bins", n, w, levels)
				}
			}
		}
	}
}
