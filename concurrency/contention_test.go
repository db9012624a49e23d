package concurrency

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// Real contention: 4 goroutines on 2 bins for millions of balls. Run fails
// when the loads do not add up to the balls or a measured bin's load went
// down, so an add done as a load and a store (lost updates) fails here, where -race sees nothing wrong with
// atomic loads and stores. Two-choice takes the racy fast loop, the others
// the general path.
func TestContentionTotalsExact(t *testing.T) {
	m := uint64(1 << 24) // fewer let the fast loop's load+store mutation through here (2 loaded cores)
	if raceOn {
		m = 1 << 20
	} else if !testing.Short() {
		m = 1 << 26
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.NumCPU())))
	for _, p := range []struct {
		name   string
		params map[string]string
	}{
		{"two-choice", nil}, {"one-plus-beta", map[string]string{"beta": "0.3"}}, {"g-myopic-comp", map[string]string{"g": "1"}},
	} {
		for _, mode := range contentionModes {
			t.Run(fmt.Sprintf("%s/%s", p.name, mode), func(t *testing.T) {
				mm := m
				if p.name != "two-choice" || mode != Racy {
					mm = m / 8 // the general path's window is wide: lost updates show in fewer balls
				}
				res, err := Run(Config{Spec: spec(t, p.name, p.params, 2, mm, 17), Workers: 4, Mode: mode, Batch: 8, MeasureEvery: 64})
				if err != nil {
					t.Fatal(err)
				}
				sum := uint64(0)
				for _, x := range res.ShardTotals {
					sum += x
				}
				if sum != mm {
					t.Errorf("shard totals add up to %d of %d", sum, mm)
				}
			})
		}
	}
}

// contentionModes are the modes whose totals must be exact under contention.
var contentionModes = []Mode{Racy, CAS, LocalBatch, Sharded}

// A striped counter's adds are never lost: 4 goroutines add to one shared
// cell and to their own, and the sum is exact.
func TestStripedUnderContention(t *testing.T) {
	const per = 1 << 18
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.NumCPU())))
	s := NewStriped(4)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				s.Add(0, 1)
				s.Add(w, 2)
			}
		}()
	}
	wg.Wait()
	if got := s.Sum(); got != 4*per*3 {
		t.Errorf("sum %d, want %d", got, 4*per*3)
	}
	if got := s.Load(0); got != 4*per+2*per {
		t.Errorf("the shared cell holds %d, want %d", got, 6*per)
	}
}

// levelT is the largest Welch t over the fractions of bins at load ≥ m/n + r,
// r = −4 … 4, between one racy worker running conc and the sequential
// engine running seq, over trials seeded runs each.
func levelT(t *testing.T, conc, seq *core.Spec, trials int) float64 {
	t.Helper()
	n, m := conc.Bins, conc.Balls
	a, b := map[int][]float64{}, map[int][]float64{}
	for tr := range uint64(trials) {
		res, err := Run(Config{Spec: conc, Trial: tr, Workers: 1, Mode: Racy})
		if err != nil {
			t.Fatal(err)
		}
		r := engine.RunTrial(seq, tr+1<<20, nil)
		for rel := -4; rel <= 4; rel++ {
			a[rel] = append(a[rel], fracAtLeast(res.Histogram, float64(m/n)+float64(rel), n))
			b[rel] = append(b[rel], fracAtLeast(r.Histogram, float64(m/n)+float64(rel), n))
		}
	}
	worst := 0.0
	for rel := -4; rel <= 4; rel++ {
		am, ase := meanSE(a[rel])
		bm, bse := meanSE(b[rel])
		if se := math.Hypot(ase, bse); se > 0 {
			worst = max(worst, math.Abs(am-bm)/se)
		}
	}
	return worst
}

// One racy worker is the sequential process, for every process balloc
// concurrent runs: the fraction of bins at each level agrees (Welch t < 4.5
// on each of 9 levels; under the null a |t| that large is a 1-in-10^4
// event per level). Power: the same test tells the process from the
// mutation a bug would make of it — the (1+β) coin swapped (β against
// 1 − β), g-myopic's ≤ g read as < g (g against g − 1), two-thinning's
// threshold off by one, d off by one — with t > 6.
func TestOneWorkerIsSequentialProcess(t *testing.T) {
	const n, m = 200, 4000
	trials := 60
	if !testing.Short() {
		trials = 200
	}
	cases := []struct {
		name         string
		params, flip map[string]string
	}{
		{"one-plus-beta", map[string]string{"beta": "0.3"}, map[string]string{"beta": "0.7"}},
		{"g-myopic-comp", map[string]string{"g": "2"}, map[string]string{"g": "1"}},
		{"two-thinning", map[string]string{"threshold": "1"}, map[string]string{"threshold": "2"}},
		{"d-choice", map[string]string{"d": "3"}, map[string]string{"d": "2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := spec(t, c.name, c.params, n, m, 23)
			same, off := levelT(t, s, s, trials), levelT(t, s, spec(t, c.name, c.flip, n, m, 23), trials)
			t.Logf("|t| against itself %.2f, against %v %.2f", same, c.flip, off)
			if same > 4.5 {
				t.Errorf("one worker against the sequential engine: |t| = %.2f", same)
			}
			if off < 6 {
				t.Errorf("power: %v against %v gives only |t| = %.2f", c.params, c.flip, off)
			}
		})
	}
}
