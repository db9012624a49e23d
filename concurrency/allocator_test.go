package concurrency

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
)

func TestCellIsOneCacheLine(t *testing.T) {
	if got := unsafe.Sizeof(cell{}); got != CacheLine {
		t.Errorf("a striped-counter cell is %d bytes, want one cache line of %d", got, CacheLine)
	}
	if l := cpuid.CPU.CacheLine; l > 0 && l != CacheLine {
		t.Errorf("this CPU's cache line is %d bytes; cells are laid out for %d", l, CacheLine)
	}
	if NewLoads(10, Padded).stride*4 != CacheLine {
		t.Errorf("a padded bin does not take one cache line")
	}
}

func spec(t testing.TB, process string, params map[string]string, n, m uint64, seed uint64) *core.Spec {
	t.Helper()
	s, err := core.NewSpec(process, params, core.Common{Bins: n, Balls: m, Trials: 1, Seed: seed, Alpha: 1, Engine: core.EngineDirect})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Nothing lost, nothing doubled: for every process, mode, layout and worker
// count the loads add up to the balls (Run checks it and fails otherwise),
// and so do the per-shard totals.
func TestTotalsAddUp(t *testing.T) {
	procs := []struct {
		name   string
		params map[string]string
	}{
		{"one-choice", nil}, {"two-choice", nil}, {"d-choice", map[string]string{"d": "3"}},
		{"one-plus-beta", map[string]string{"beta": "0.5"}}, {"two-thinning", map[string]string{"threshold": "1"}},
		{"g-myopic-comp", map[string]string{"g": "2"}},
	}
	for _, p := range procs {
		for _, mode := range []Mode{Racy, CAS, LocalBatch, Sharded} {
			for _, layout := range []Layout{Packed, Padded} {
				for _, w := range []int{1, 2, 4} {
					for _, emu := range []bool{false, true} {
						if raceOn && (emu || w == 1) {
							continue // one goroutine: nothing shared for the race detector to see
						}
						name := fmt.Sprintf("%s/%s/%s/W=%d/emulate=%v", p.name, mode, layout, w, emu)
						t.Run(name, func(t *testing.T) {
							res, err := Run(Config{Spec: spec(t, p.name, p.params, 1000, 10007, 3), Workers: w, Mode: mode,
								Batch: 37, Layout: layout, MeasureEvery: 7, Emulate: emu})
							if err != nil {
								t.Fatal(err)
							}
							sum := uint64(0)
							for _, x := range res.ShardTotals {
								sum += x
							}
							if sum != 10007 {
								t.Errorf("shard totals add up to %d", sum)
							}
							// The workers' own tallies (Run has checked each
							// against the loads it accounts for): they add up
							// to m too, one per worker.
							placed := uint64(0)
							for _, x := range res.WorkerPlaced {
								placed += x
							}
							if len(res.WorkerPlaced) != w || placed != 10007 {
								t.Errorf("worker tallies %v add up to %d", res.WorkerPlaced, placed)
							}
							if res.GlobalStaleness.Count == 0 {
								t.Errorf("nothing was measured")
							}
						})
					}
				}
			}
		}
	}
}

// One worker, racy: every read is current, so both stalenesses are zero.
func TestOneWorkerSeesNoStaleness(t *testing.T) {
	for _, emu := range []bool{false, true} {
		res, err := Run(Config{Spec: spec(t, "two-choice", nil, 10000, 1e6, 4), Workers: 1, Mode: Racy, MeasureEvery: 3, Emulate: emu})
		if err != nil {
			t.Fatal(err)
		}
		if res.BinStaleness.Max != 0 || res.GlobalStaleness.Max != 0 || res.BinStaleness.Count < 300000 ||
			res.Descheduled.Max != 0 || res.Descheduled.Count > res.GlobalStaleness.Count {
			t.Errorf("emulate=%v: bin staleness %+v, global %+v", emu, res.BinStaleness, res.GlobalStaleness)
		}
	}
}

// The same seed gives the same emulated run.
func TestEmulationIsDeterministic(t *testing.T) {
	for _, mode := range []Mode{Racy, CAS, LocalBatch, Sharded} {
		run := func() *Result {
			res, err := Run(Config{Spec: spec(t, "two-choice", nil, 500, 50000, 5), Workers: 8, Mode: mode, Batch: 16, MeasureEvery: 5, Emulate: true})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b := run(), run()
		if fmt.Sprint(a.Histogram, a.GlobalStaleness, a.BinStaleness, a.Retries) != fmt.Sprint(b.Histogram, b.GlobalStaleness, b.BinStaleness, b.Retries) {
			t.Errorf("%s: two emulated runs with the same seed differ", mode)
		}
	}
}

// Emulated staleness grows with the number of virtual workers, and so does
// the gap, as the delay model says it must (Los and Sauerwald: the gap of
// τ-Delay grows with τ once τ is a multiple of n); the sequential model fed
// with the measured ages (tau-delay --delay empirical) bounds it from above,
// since a measured age counts every ball committed while the ball was in
// flight, not only those decided before it. Fixed seeds; each step up in W
// raises the mean gap by more than 4 standard errors of the difference.
func TestEmulatedGapGrowsWithWorkers(t *testing.T) {
	n, m, trials := uint64(16), uint64(16*1000), 24
	workers := []int{1, 2048}
	if !testing.Short() {
		m, trials, workers = 16*2000, 40, []int{1, 1024, 4096}
	}
	prevMean, prevSE := math.Inf(-1), 0.0
	for _, W := range workers {
		var emu, model []float64
		for tr := range uint64(trials) {
			res, err := Run(Config{Spec: spec(t, "two-choice", nil, n, m, 9), Trial: tr, Workers: W, Mode: Racy, MeasureEvery: 4, Emulate: true})
			if err != nil {
				t.Fatal(err)
			}
			emu = append(emu, res.Gap)
			ds, err := core.NewSpec("tau-delay", map[string]string{"delay": "empirical"},
				core.Common{Bins: n, Balls: m, Trials: 1, Seed: 9, Alpha: 1}, core.WithAges(res.GlobalStaleness.Weights(), "measured"))
			if err != nil {
				t.Fatal(err)
			}
			model = append(model, engine.RunTrial(ds, tr, nil).Gap)
		}
		em, ese := meanSE(emu)
		mm, mse := meanSE(model)
		t.Logf("W = %d: emulated gap %.2f ± %.2f, delay model %.2f ± %.2f", W, em, ese, mm, mse)
		if em-prevMean <= 4*math.Hypot(ese, prevSE) {
			t.Errorf("W = %d: the emulated gap %.2f does not grow from %.2f", W, em, prevMean)
		}
		if mm < em-4*math.Hypot(ese, mse) {
			t.Errorf("W = %d: the delay model's gap %.2f is below the emulated %.2f", W, mm, em)
		}
		prevMean, prevSE = em, ese
	}
}

func meanSE(xs []float64) (float64, float64) {
	m, ss := 0.0, 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// One racy worker is two-choice: the gap and the fraction of bins at each
// load agree with the sequential engine's, over seeded trials (two-sample:
// Welch t on each level's mean fraction, |t| < 4.5).
func TestOneWorkerIsTwoChoice(t *testing.T) {
	const n, m, trials = 1000, 20000, 120
	conc := map[int][]float64{}
	seq := map[int][]float64{}
	s := spec(t, "two-choice", nil, n, m, 10)
	for tr := range uint64(trials) {
		res, err := Run(Config{Spec: s, Trial: tr, Workers: 1, Mode: Racy})
		if err != nil {
			t.Fatal(err)
		}
		r := engine.RunTrial(s, tr+1000, nil)
		for rel := -4; rel <= 4; rel++ {
			conc[rel] = append(conc[rel], fracAtLeast(res.Histogram, float64(m/n+rel), n))
			seq[rel] = append(seq[rel], fracAtLeast(r.Histogram, float64(m/n+rel), n))
		}
	}
	for rel := -4; rel <= 4; rel++ {
		a, ase := meanSE(conc[rel])
		b, bse := meanSE(seq[rel])
		if se := math.Hypot(ase, bse); se > 0 && math.Abs(a-b)/se > 4.5 {
			t.Errorf("level m/n%+d: fraction %.4f (one worker) vs %.4f (sequential)", rel, a, b)
		}
	}
}

func fracAtLeast(h result.Histogram, x float64, n uint64) float64 {
	c := uint64(0)
	for _, l := range h {
		if l.Load >= x {
			c += l.Count
		}
	}
	return float64(c) / float64(n)
}
