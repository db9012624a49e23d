package theory

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// As b/n → 0 the batch map is an Euler step of two-choice's ODE: at
// b/n = 10^-3 the limit is within O(b/n) of FluidDChoice(2, t), and at
// b/n = 10^-2 ten times as far (the error is first order in τ).
func TestFluidBBatchSmallBatchIsTwoChoice(t *testing.T) {
	const n = 1000000
	for _, tt := range []uint64{1, 4, 20} {
		fine, err := FluidBBatch(n/1000, n, tt*n)
		if err != nil {
			t.Fatal(err)
		}
		coarse, err := FluidBBatch(n/100, n, tt*n)
		if err != nil {
			t.Fatal(err)
		}
		two := FluidDChoice(2, float64(tt))
		df, dc := maxDiff(fine, two), maxDiff(coarse, two)
		t.Logf("t = %d: b/n = 1e-3 off by %.2g, 1e-2 by %.2g", tt, df, dc)
		if df > 2e-3 || dc < 5*df {
			t.Errorf("t = %d: b/n = 1e-3 differs from two-choice by %g, b/n = 1e-2 by %g", tt, df, dc)
		}
	}
}

// One batch from empty bins is all ties, so one-choice: Poisson(m/n); and
// b ≥ m is one partial batch, the same.
func TestFluidBBatchOneBatchIsOneChoice(t *testing.T) {
	for _, c := range []struct{ b, n, m uint64 }{{1000, 1000, 1000}, {4000, 1000, 4000}, {10000, 1000, 2500}} {
		p, err := FluidBBatch(c.b, c.n, c.m)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(p, FluidOneChoice(float64(c.m)/float64(c.n))); d > 1e-12 {
			t.Errorf("b = %d, n = %d, m = %d: differs from one-choice by %g", c.b, c.n, c.m, d)
		}
	}
}

// Heavy load: m/n ≈ 1000 skips to the end on the travelling wave (b = n,
// b = n/1000, b = 3n with a partial last batch), applying about as many
// batch maps as m/n ≈ 60 takes, and lands where applying every batch map
// up to m/n ≈ 60 does, moved up.
func TestFluidBBatchHeavyLoadWave(t *testing.T) {
	const n = 10000
	for _, c := range []struct{ b, heavy, light uint64 }{
		{n, 1000 * n, 60 * n}, {n / 1000, 1000 * n, 60 * n}, {3 * n, 1000 * n, 61 * n}, {3 * n, 999 * n, 60 * n},
	} {
		heavy, maps, err := fluidBBatch(c.b, n, c.heavy)
		if err != nil {
			t.Fatal(err)
		}
		// The work, not the seconds (BenchmarkFluidBBatchHeavyLoad has
		// those, against applying every map): no more maps than reaching
		// m/n = light takes, plus the two periods that find the shift and
		// the partial batch. Applying all ⌈m/b⌉ maps (no skip) is 16 to
		// 17 times that.
		g := gcd(c.b, n)
		if bound := c.light/c.b + 2*(n/g) + 1; maps > bound {
			t.Errorf("b = %d: m/n = %d applied %d batch maps, more than the %d that reaching m/n = %d and two periods take", c.b, c.heavy/n, maps, bound, c.light/n)
		}
		w := &batchWindow{p: []float64{1}}
		for range c.light / c.b {
			w.step(float64(c.b) / n)
		}
		if r := c.light % c.b; r > 0 {
			w.step(float64(r) / n)
		}
		light := w.profile()
		light.Base += int(c.heavy/n - c.light/n)
		if d := maxDiff(heavy, light); d > 1e-9 {
			t.Errorf("b = %d: m/n = %d is not m/n = %d moved up (off by %g)", c.b, c.heavy/n, c.light/n, d)
		}
	}
}

// A final partial batch reads the last full batch's frozen loads: m = 2.5n
// with b = n is two batches and then a half batch, not the limit at b = n/2
// or at 2.5 with b = n/2 (nor two-choice).
func TestFluidBBatchPartialBatch(t *testing.T) {
	const n = 100000
	p, _ := FluidBBatch(n, n, 5*n/2)
	two, _ := FluidBBatch(n, n, 2*n)
	half, _ := FluidBBatch(n/2, n, 5*n/2)
	if d := maxDiff(p, half); d < 1e-3 {
		t.Errorf("m = 2.5n at b = n agrees with b = n/2 (off by %g)", d)
	}
	// By hand: the map with τ = 1/2 on the profile at m = 2n.
	bw := &batchWindow{base: two.Base - 1}
	for i := two.Base - 1; i <= two.Top(); i++ {
		bw.p = append(bw.p, two.At(i)-two.At(i+1))
	}
	bw.step(0.5)
	if d := maxDiff(p, bw.profile()); d > 1e-12 {
		t.Errorf("the partial batch is not the half map on the last frozen state (off by %g)", d)
	}
}

// More batch maps than fluidBatchSteps with no short period (b = 7 and a
// prime n) is refused, naming the batch, rather than computed for minutes.
func TestFluidBBatchRefusesLongWork(t *testing.T) {
	_, err := FluidBBatch(7, 1000003, 1000003*1000)
	if err == nil || !strings.Contains(err.Error(), "batch=7 needs 142857571 batch maps, over 1048576, and its period bins/gcd(batch, bins) = 1000003 batches") {
		t.Errorf("err = %v", err)
	}
	if _, err := FluidBBatch(7, 1000003, 7*fluidBatchSteps); err != nil {
		t.Errorf("at the bound: %v", err)
	}
}

// BenchmarkFluidBBatchHeavyLoad: the b-batch limit at m/n = 1000 (b = n and
// b = n/1000, n = 10^4) by FluidBBatch, which skips whole periods on the
// travelling wave, against the literal loop applying every batch map, in
// the same run, interleaved; it reports each one's time and the ratio
// every-map/skip (12 at b = n and 23 at b = n/1000 on a loaded 2-core
// machine when the skip works; 1 when it does not). TestFluidBBatchHeavyLoadWave bounds the maps applied.
func BenchmarkFluidBBatchHeavyLoad(b *testing.B) {
	const n, heavy = 10000, 1000 * 10000
	for _, batch := range []uint64{n, n / 1000} {
		b.Run(fmt.Sprintf("b=%d", batch), func(b *testing.B) {
			var skip, every time.Duration
			for range b.N {
				start := time.Now()
				if _, err := FluidBBatch(batch, n, heavy); err != nil {
					b.Fatal(err)
				}
				skip += time.Since(start)
				start = time.Now()
				w := &batchWindow{p: []float64{1}}
				for range heavy / batch {
					w.step(float64(batch) / n)
				}
				every += time.Since(start)
			}
			b.ReportMetric(skip.Seconds()/float64(b.N)*1e3, "ms-skip")
			b.ReportMetric(every.Seconds()/float64(b.N)*1e3, "ms-every-map")
			b.ReportMetric(every.Seconds()/skip.Seconds(), "every/skip")
		})
	}
}
