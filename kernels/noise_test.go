package kernels

import (
	"fmt"
	"math"
	"testing"
)

type noiseCase struct {
	name string
	// fast runs the loop under test for count balls (unit weights when w is
	// nil) on loads held as L or float64, and ref the reference on float64.
	fast32 func(loads []uint32, r, noise *PCG32, count uint64) uint32
	fastW  func(loads []float64, r, noise *PCG32, w []float64) float64
	ref    func(loads []float64, r, noise *PCG32, w []float64, count int)
}

func noiseCases(n int) []noiseCase {
	var cs []noiseCase
	for _, rule := range []GRule{GHeavier, GRandom, GMaxTarget} {
		for _, g := range []uint64{0, 1, 3} {
			cs = append(cs, noiseCase{
				name:   fmt.Sprintf("gcomp-rule%d-g%d", rule, g),
				fast32: func(l []uint32, r, nz *PCG32, c uint64) uint32 { return GComp(l, r, nz, c, g, rule, maxOf(l)) },
				fastW: func(l []float64, r, nz *PCG32, w []float64) float64 {
					return GCompWeighted(l, r, nz, w, float64(g), rule, maxOf(l))
				},
				ref: func(l []float64, r, nz *PCG32, w []float64, c int) { refGComp(l, r, nz, w, c, float64(g), rule) },
			})
		}
	}
	for _, sigma := range []float64{0, 0.7, 5} {
		cs = append(cs, noiseCase{
			name:   fmt.Sprintf("sigma-%v", sigma),
			fast32: func(l []uint32, r, nz *PCG32, c uint64) uint32 { return SigmaNoisyLoad(l, r, nz, c, sigma, maxOf(l)) },
			fastW: func(l []float64, r, nz *PCG32, w []float64) float64 {
				return SigmaNoisyLoadWeighted(l, r, nz, w, sigma, maxOf(l))
			},
			ref: func(l []float64, r, nz *PCG32, w []float64, c int) { refSigma(l, r, nz, w, c, sigma) },
		})
	}
	for _, rho := range []Rho{{RhoGauss, 1.5, 0}, {RhoLogistic, 0.8, 0}, {RhoStep, 2, 0.3}, {RhoStep, 1, 0}, {RhoGauss, 3000, 0}} {
		table, err := NewRhoTable(rho)
		if err != nil {
			panic(err)
		}
		cs = append(cs, noiseCase{
			name:   fmt.Sprintf("rho-%d-%v-%v", rho.Kind, rho.A, rho.B),
			fast32: func(l []uint32, r, nz *PCG32, c uint64) uint32 { return RhoNoisyComp(l, r, nz, c, table, maxOf(l)) },
			fastW: func(l []float64, r, nz *PCG32, w []float64) float64 {
				return RhoNoisyCompWeighted(l, r, nz, w, rho, maxOf(l))
			},
			ref: func(l []float64, r, nz *PCG32, w []float64, c int) { refRho(l, r, nz, w, c, rho) },
		})
	}
	empirical, err := NewAges([]uint32{0, 2, 3, 6}, []uint64{3, 2, 1, 4}, 6)
	if err != nil {
		panic(err)
	}
	for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial, DelayEmpirical} {
		taus := []uint64{1, 7, uint64(n), uint64(3 * n)}
		var ages *Ages
		if mode == DelayEmpirical {
			taus, ages = []uint64{6}, empirical
		}
		for _, tau := range taus {
			var d32 *Delay[uint32]
			var dW *Delay[float64]
			var hist [][]float64
			cs = append(cs, noiseCase{
				name: fmt.Sprintf("delay-mode%d-tau%d", mode, tau),
				fast32: func(l []uint32, r, nz *PCG32, c uint64) uint32 {
					if d32 == nil {
						d32 = NewDelay[uint32](len(l), tau, mode, false, ages, math.MaxUint64)
					}
					return TauDelay(l, r, nz, c, d32, maxOf(l))
				},
				fastW: func(l []float64, r, nz *PCG32, w []float64) float64 {
					if dW == nil {
						dW = NewDelay[float64](len(l), tau, mode, true, ages, math.MaxUint64)
					}
					return TauDelayWeighted(l, r, nz, w, dW, maxOf(l))
				},
				ref: func(l []float64, r, nz *PCG32, w []float64, c int) {
					if c < 0 { // reset between the unit and weighted runs
						hist, d32, dW = nil, nil, nil
						return
					}
					refDelay(l, r, nz, w, c, tau, mode, ages, &hist)
				},
			})
		}
	}
	for _, b := range []uint64{1, 3, uint64(n) / 2, uint64(n), uint64(5*n + 1)} {
		var b32 *Batch[uint32]
		var bW *Batch[float64]
		var placed uint64
		var frozen []float64
		cs = append(cs, noiseCase{
			name: fmt.Sprintf("batch-%d", b),
			fast32: func(l []uint32, r, nz *PCG32, c uint64) uint32 {
				if b32 == nil {
					b32 = NewBatch[uint32](len(l), b, false)
				}
				return BBatch(l, r, c, b32, maxOf(l))
			},
			fastW: func(l []float64, r, nz *PCG32, w []float64) float64 {
				if bW == nil {
					bW = NewBatch[float64](len(l), b, true)
				}
				return BBatchWeighted(l, r, w, bW, maxOf(l))
			},
			ref: func(l []float64, r, nz *PCG32, w []float64, c int) {
				if c < 0 {
					b32, bW, placed, frozen = nil, nil, 0, nil
					return
				}
				refBatch(l, r, w, c, b, &placed, &frozen)
			},
		})
	}
	return cs
}

// Every noisy loop against its reference, unit and weighted, in three calls
// so that state carried between calls is exercised.
func TestNoisyLoopsMatchReference(t *testing.T) {
	for _, sz := range []struct{ n, balls int }{{5, 3000}, {64, 20000}} {
		for ci, c := range noiseCases(sz.n) {
			t.Run(fmt.Sprintf("%s/n=%d", c.name, sz.n), func(t *testing.T) {
				seed := uint64(300 + ci)
				cuts := []int{0, sz.balls / 3, sz.balls/3 + 1, sz.balls}
				// Unit weights.
				fl := make([]uint32, sz.n)
				rl := make([]float64, sz.n)
				fr, fn := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneNoise)
				rr, rn := fr, fn
				c.ref(nil, nil, nil, nil, -1)
				for k := 1; k < len(cuts); k++ {
					m := c.fast32(fl, &fr, &fn, uint64(cuts[k]-cuts[k-1]))
					c.ref(rl, &rr, &rn, nil, cuts[k]-cuts[k-1])
					for i := range fl {
						if float64(fl[i]) != rl[i] {
							t.Fatalf("unit, after %d balls: bin %d holds %d, reference %v", cuts[k], i, fl[i], rl[i])
						}
					}
					if m != maxOf(fl) {
						t.Fatalf("unit: returned max %d, loads' max %d", m, maxOf(fl))
					}
				}
				if fr != rr || fn != rn {
					t.Fatalf("unit: streams left in different states")
				}
				// Weighted.
				c.ref(nil, nil, nil, nil, -1)
				ws := TrialStream(seed, 0, LaneWeights)
				w := make([]float64, sz.balls)
				FillExp(w, &ws, 1)
				fw, rw := make([]float64, sz.n), make([]float64, sz.n)
				fr, fn = TrialStream(seed, 1, LaneChoices), TrialStream(seed, 1, LaneNoise)
				rr, rn = fr, fn
				for k := 1; k < len(cuts); k++ {
					c.fastW(fw, &fr, &fn, w[cuts[k-1]:cuts[k]])
					c.ref(rw, &rr, &rn, w[cuts[k-1]:cuts[k]], cuts[k]-cuts[k-1])
				}
				for i := range fw {
					if d := fw[i] - rw[i]; d > 1e-9*rw[i] || d < -1e-9*rw[i] {
						t.Fatalf("weighted: bin %d holds %v, reference %v", i, fw[i], rw[i])
					}
				}
				if fr != rr || fn != rn {
					t.Fatalf("weighted: streams left in different states")
				}
			})
		}
	}
}
