package concurrency

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// literalAges is the definition, O(m²): ball i's age is the number of balls
// j ≠ i whose commit stamp lies strictly between i's read and commit
// stamps, and the balls are listed by commit stamp, ties by worker (each
// worker's own balls in its order).
func literalAges(logs [][]uint64) (ages, order []uint32) {
	type b struct {
		r, c uint64
		w, k int
	}
	var balls []b
	for w, l := range logs {
		for k := 0; k < len(l)/2; k++ {
			balls = append(balls, b{l[2*k], l[2*k+1], w, k})
		}
	}
	sort.SliceStable(balls, func(i, j int) bool {
		if balls[i].c != balls[j].c {
			return balls[i].c < balls[j].c
		}
		if balls[i].w != balls[j].w {
			return balls[i].w < balls[j].w
		}
		return balls[i].k < balls[j].k
	})
	for _, x := range balls {
		a := uint32(0)
		for _, y := range balls {
			if (y.w != x.w || y.k != x.k) && x.r < y.c && y.c < x.c {
				a++
			}
		}
		ages, order = append(ages, a), append(order, uint32(x.w))
	}
	return ages, order
}

// syntheticLogs are W workers' logs in program order (read < commit ≤ next
// read) on a clock so coarse that stamps of different workers often tie.
func syntheticLogs(r *rand.Rand, W int) [][]uint64 {
	logs := make([][]uint64, W)
	for w := range logs {
		cur := uint64(r.IntN(10))
		for range r.IntN(40) {
			rd := cur + uint64(r.IntN(3))
			c := rd + 1 + uint64(r.IntN(5))
			logs[w] = append(logs[w], rd, c)
			cur = c
		}
	}
	return logs
}

func cloneLogs(logs [][]uint64) [][]uint64 {
	out := make([][]uint64, len(logs))
	for w := range logs {
		out[w] = slices.Clone(logs[w])
	}
	return out
}

// (a) The merge's ages and order are the literal count's, on random logs
// with many ties of stamps.
func TestTraceAgesAgainstLiteral(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	for trial := range 2000 {
		W := 1 + r.IntN(6)
		logs := syntheticLogs(r, W)
		wantAges, wantOrder := literalAges(logs)
		ages, order := make([]uint32, len(wantAges)), make([]uint32, len(wantAges))
		if d := traceAges(cloneLogs(logs), ages, order); d != 0 {
			t.Fatalf("trial %d: %d stamps out of program order in ordered logs %v", trial, d, logs)
		}
		if !slices.Equal(ages, wantAges) || !slices.Equal(order, wantOrder) {
			t.Fatalf("trial %d, logs %v:\nages %v order %v\nwant %v order %v", trial, logs, ages, order, wantAges, wantOrder)
		}
	}
}

// Stamps out of program order are counted, and an age never goes below 0.
func TestTraceAgesDisordered(t *testing.T) {
	logs := [][]uint64{{10, 5, 3, 20}, {1, 2, 6, 7}} // worker 0: a commit before its read, then a read before that commit
	ages := make([]uint32, 4)
	if d := traceAges(logs, ages, nil); d != 2 {
		t.Errorf("disordered %d, want 2", d)
	}
	// Worker 1's balls sweep first (ages 0, 0); worker 0's commit at 5
	// meets its read at 10, two commits later, and is clamped at 0.
	if !slices.Equal(ages, []uint32{0, 0, 0, 0}) {
		t.Errorf("ages %v", ages)
	}
}

func traceSpec(t *testing.T, process string, n, m uint64, set map[string]string) *core.Spec {
	t.Helper()
	s, err := core.NewSpec(process, set, core.Common{Bins: n, Balls: m, Trials: 1, Seed: 7, Alpha: 1, Engine: core.EngineDirect})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func skipWithoutTSC(t *testing.T) {
	t.Helper()
	if err := TSCCheck(); err != nil {
		t.Skipf("no tracing here: %v", err)
	}
}

// (b) One worker commits its balls in order and nobody else commits: every
// traced age is exactly 0, on the fast racy loop and on the general path
// (one-plus-beta racy, two-choice cas).
func TestTracedOneWorkerAgesZero(t *testing.T) {
	skipWithoutTSC(t)
	for _, c := range []struct {
		process string
		set     map[string]string
		mode    Mode
	}{
		{"two-choice", nil, Racy},
		{"one-plus-beta", map[string]string{"beta": "0.3"}, Racy},
		{"two-choice", nil, CAS},
	} {
		m := uint64(300000)
		res, err := Run(Config{Spec: traceSpec(t, c.process, 1000, m, c.set), Workers: 1, Mode: c.mode, MeasureEvery: 256, TraceAges: true})
		if err != nil {
			t.Fatal(err)
		}
		if uint64(len(res.Ages)) != m || res.AgeLaw.Max != 0 || res.TracedDisordered != 0 || !res.Traced || res.TracedMeasured.Count != m/256 || res.TracedMeasured.Max != 0 {
			t.Errorf("%s %s, one worker: %d ages, max %d, %d disordered; want %d ages all 0", c.process, c.mode, len(res.Ages), res.AgeLaw.Max, res.TracedDisordered, m)
		}
	}
}

// sortedAges is the second construction: the commit stamps sorted, and an
// age as (commits below the commit stamp) − (commits at or below the read
// stamp), by binary search; listed in the commit order given.
func sortedAges(logs [][]uint64, order []uint32) []uint32 {
	var all []uint64
	for _, l := range logs {
		for k := 1; k < len(l); k += 2 {
			all = append(all, l[k])
		}
	}
	slices.Sort(all)
	next := make([]int, len(logs))
	ages := make([]uint32, len(order))
	for p, w := range order {
		k := next[w]
		next[w]++
		r, c := logs[w][2*k], logs[w][2*k+1]
		below, _ := slices.BinarySearch(all, c)
		atOrBelow := sort.Search(len(all), func(i int) bool { return all[i] > r })
		ages[p] = uint32(max(below-atOrBelow, 0))
	}
	return ages
}

// (c) Four workers on two bins for a million balls, racy and cas: the merged
// order holds each worker's balls exactly once and by commit stamp, the
// loads add up to m, no stamp is out of program order, and every age (so
// their sum) is the sorted-array construction's.
func TestTracedContention(t *testing.T) {
	skipWithoutTSC(t)
	m := uint64(1_000_000)
	if testing.Short() {
		m = 250_000
	}
	for _, mode := range []Mode{Racy, CAS} {
		cfg := Config{Spec: traceSpec(t, "two-choice", 2, m, nil), Workers: 4, Mode: mode, MeasureEvery: 256, TraceAges: true}
		ru, err := newRule(cfg.Spec)
		if err != nil {
			t.Fatal(err)
		}
		logs := newTraceLogs(m, 4)
		st := runWorkers(cfg, ru, 4, logs)
		total := uint64(0)
		for _, v := range st.loads.Snapshot() {
			total += uint64(v)
		}
		if total != m {
			t.Fatalf("%s: the loads hold %d balls, want %d", mode, total, m)
		}
		kept := cloneLogs(logs)
		ages, order := make([]uint32, m), make([]uint32, m)
		if d := traceAges(logs, ages, order); d != 0 {
			t.Errorf("%s: %d stamps out of program order", mode, d)
		}
		next := make([]int, 4)
		prev := uint64(0)
		var measured tally // the ages of every 256-th ball of each worker, picked from the commit order
		for p, w := range order {
			c := kept[w][2*next[w]+1]
			if c < prev {
				t.Fatalf("%s: commit %d of the merged order has stamp %d after %d", mode, p, c, prev)
			}
			prev = c
			next[w]++
			if next[w]%256 == 0 {
				measured.add(uint64(ages[p]))
			}
		}
		if got, want := measuredAges(logs, 256), merge([]tally{measured}); !reflect.DeepEqual(got, want) || got.Count != m/4/256*4 {
			t.Errorf("%s: measured balls' traced ages %+v, want %+v", mode, got, want)
		}
		for w := range 4 {
			if uint64(next[w]) != share(m, 4, w) {
				t.Errorf("%s: worker %d has %d balls in the merged order, its share is %d", mode, w, next[w], share(m, 4, w))
			}
		}
		want := sortedAges(kept, order)
		var sum, wantSum uint64
		for p := range ages {
			sum, wantSum = sum+uint64(ages[p]), wantSum+uint64(want[p])
		}
		if !slices.Equal(ages, want) {
			t.Errorf("%s: ages differ from the sorted-array construction (sums %d and %d)", mode, sum, wantSum)
		}
		law := lawOf(ages)
		t.Logf("%s, W = 4, n = 2: traced ages mean %.3g p50 %d p99 %d max %d, sum %d; CAS retries %d", mode, law.Mean, law.P50, law.P99, law.Max, sum, st.retries)
	}
}

// (d) The traced ages replay in tau-delay --delay replay and give a gap.
// Not compared with the concurrent gap in a test: on two shared cores the
// workers' interleaving, and so the ages' joint law, changes from run to run
// with the machine's load, and stamping changes it too, so no tolerance
// derived from theory would hold; the emulated runs are where replay and run
// are compared (TestReplayOfEmulationMatchesIt).
func TestTracedReplayRuns(t *testing.T) {
	skipWithoutTSC(t)
	m := uint64(200_000)
	res, err := Run(Config{Spec: traceSpec(t, "two-choice", 1000, m, nil), Workers: 2, Mode: Racy, MeasureEvery: 256, TraceAges: true})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(res.Ages)) != m || res.AgeLaw.Count != m {
		t.Fatalf("%d ages, law of %d, want %d", len(res.Ages), res.AgeLaw.Count, m)
	}
	s, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay"},
		core.Common{Bins: 1000, Balls: m, Trials: 1, Seed: 7, Alpha: 1, Engine: core.EngineDirect}, core.WithReplay(res.Ages, "traced"))
	if err != nil {
		t.Fatal(err)
	}
	r := engine.RunTrial(s, 1<<20, nil)
	if r.Gap < 0 || r.Balls != m {
		t.Errorf("replay: gap %v over %d balls", r.Gap, r.Balls)
	}
	t.Logf("W = 2, n = 1000, m = %d: concurrent gap %v, replay gap %v; traced ages p50 %d p99 %d max %d, %d preempted",
		m, res.Gap, r.Gap, res.AgeLaw.P50, res.AgeLaw.P99, res.AgeLaw.Max, res.TracedPreempted)
}

// (e) What tracing refuses, each with the flag it names: emulated runs,
// local-batch and sharded, departures, and a machine whose counter cannot
// order commits (the check replaced).
func TestTraceRefusals(t *testing.T) {
	spec := traceSpec(t, "two-choice", 10, 100, nil)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Spec: spec, Workers: 2, Emulate: true, TraceAges: true}, "--emulate"},
		{Config{Spec: spec, Workers: 2, Mode: LocalBatch, Batch: 4, TraceAges: true}, "--mode local-batch"},
		{Config{Spec: spec, Workers: 2, Mode: Sharded, TraceAges: true}, "--mode sharded"},
	} {
		if _, err := Run(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	saved := TSCCheck
	defer func() { TSCCheck = saved }()
	TSCCheck = func() error { return errors.New("no TSC here") }
	if _, err := Run(Config{Spec: spec, Workers: 2, TraceAges: true}); err == nil || !strings.Contains(err.Error(), "--trace-ages") {
		t.Errorf("no invariant TSC: %v", err)
	}
	if _, err := Run(Config{Spec: spec, Workers: 2}); err != nil {
		t.Errorf("untraced run without a TSC: %v", err)
	}
}
