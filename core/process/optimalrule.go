package process

import (
	"fmt"
	"strings"
	"sync"

	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/kernels"
)

// --threshold optimal (two-thinning) and --thresholds optimal (k-thinning):
// the policy that minimises E[max load after m balls] seeing the whole load
// vector, K-Thinning's optimum by exact dynamic programming over the sorted
// load vectors (core/optimal, whose package comment has the definition, the
// sources — Feldheim and Gurel-Gurevich; A. Vari-Kakas's Cambridge Part II
// dissertation — and the choices). Check builds its decision table for the
// run's n and m (refused in one line, with the estimate, where its states
// do not fit); each ball then ranks the sorted loads and reads the table
// for each sample. The table is for m balls from empty bins that stay, one
// ball at a time: the direct and histogram engines (the state is the
// bins per load, which the histogram holds), without --initial, balls that
// leave, --batch or --tau, and no fluid limit or concurrent run.

// optimalWord is the value of --threshold / --thresholds that asks for it.
const optimalWord = "optimal"

// isOptimal says whether a flag's value asks for the optimal policy.
func isOptimal(v string) bool { return strings.TrimSpace(v) == optimalWord }

// optimalTables keeps the last tables built, so that the trials of a run,
// and a sweep's cells of the same n, m and K, share one.
var optimalTables struct {
	sync.Mutex
	key [3]uint64
	pol *optimal.Policy
}

// optimalPolicy builds (or reuses) the decision table of K-Thinning on the
// run's bins and balls; flag names the setting for its errors.
func optimalPolicy(flag string, su *Setup, k int, batch uint64, d *Delayed) (*optimal.Policy, error) {
	switch {
	case batch > 1:
		return nil, fmt.Errorf("%s optimal: the table places one ball at a time; --batch is not built with it", flag)
	case d.on():
		return nil, fmt.Errorf("%s optimal: the table reads the current loads; --tau is not built with it", flag)
	case su.Balls > 1<<16 || su.Bins > 1<<32-1:
		return nil, fmt.Errorf("%s optimal: --bins %d --balls %d: the exact DP takes m ≤ 65536 and far fewer states (see balloc optimal)", flag, su.Bins, su.Balls)
	}
	key := [3]uint64{su.Bins, su.Balls, uint64(k)}
	optimalTables.Lock()
	defer optimalTables.Unlock()
	if optimalTables.pol != nil && optimalTables.key == key {
		return optimalTables.pol, nil
	}
	if _, err := optimal.Fits(int(su.Bins), int(su.Balls), k, true); err != nil {
		return nil, fmt.Errorf("%s optimal: %v", flag, err)
	}
	sp, err := optimal.NewSpace(int(su.Bins), int(su.Balls))
	if err != nil {
		return nil, fmt.Errorf("%s optimal: %v", flag, err)
	}
	_, pol, err := optimal.Solve(sp, k, true)
	if err != nil {
		return nil, fmt.Errorf("%s optimal: %v", flag, err)
	}
	optimalTables.key, optimalTables.pol = key, pol
	return pol, nil
}

// optimalWhy is why a setting other than the direct engine's static run
// is refused with the optimal policy.
func optimalWhy(flag, what string) string {
	return fmt.Sprintf("%s optimal: the table is for m balls placed one by one from empty bins on the direct engine; %s", flag, what)
}

// optimalLoop places balls by the table: each ball ranks the loads that
// its Tracker follows (O(n + max load)) and reads the table per sample.
type optimalLoop[L kernels.Load] struct {
	r  *kernels.PCG32
	tr *optimal.Tracker
}

func newOptimalLoop[L kernels.Load](pol *optimal.Policy, tr *Trial) Stepper[L] {
	return &optimalLoop[L]{r: tr.Choices, tr: pol.NewTracker()}
}

func (l *optimalLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	for i := range c {
		maxLoad = max(maxLoad, optimal.Place(l.tr, loads, l.r, int(t+i)))
	}
	return c, maxLoad
}

// optimalLevels places balls by the table on the histogram engine: each
// ball ranks the bins per load that its Tracker follows beside the levels
// and reads the table per sample (optimal.PlaceLevels).
type optimalLevels struct {
	r  *kernels.PCG32
	tr *optimal.Tracker
}

func newOptimalLevels(pol *optimal.Policy, tr *Trial) LevelStepper {
	return &optimalLevels{r: tr.Choices, tr: pol.NewTracker()}
}

func (l *optimalLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	c := min(want, Chunk)
	for i := range c {
		optimal.PlaceLevels(l.tr, lv, l.r, int(t+i))
	}
	return c
}
