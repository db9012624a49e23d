package concurrency

import (
	"context"
	"fmt"
	"math"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Concurrent allocation: W goroutines place the balls of one trial into one
// shared array of atomic loads. A worker reads loads with atomic loads,
// decides by the process's rule, and places its ball with an atomic add (or
// a compare-and-swap); nothing on a ball's path takes a lock or writes a
// counter another worker writes. Each worker publishes its count of balls
// placed to its own cache-line cell of a striped counter after every ball
// (a plain store: storeOwned64), which is what the global staleness is
// measured from. Per-shard totals are summed from the final loads.

// Mode is how a worker turns a read into an allocation.
type Mode int

const (
	// Racy: read, decide, add — what real dispatchers do.
	Racy Mode = iota
	// CAS: compare-and-swap the chosen bin against the value read; on
	// failure read again and decide again, counting retries.
	CAS
	// LocalBatch: decide B balls against the worker's own snapshot (each bin
	// read once per batch, on first use), then publish them.
	LocalBatch
	// Sharded: each worker owns a shard of bins and writes only those, with
	// plain stores; balls for other shards go to their owners in batches
	// (sharded.go).
	Sharded
)

// ParseMode reads racy, cas or local-batch.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "racy":
		return Racy, nil
	case "cas":
		return CAS, nil
	case "local-batch":
		return LocalBatch, nil
	case "sharded":
		return Sharded, nil
	}
	return 0, fmt.Errorf("--mode %q: want racy, cas, local-batch or sharded", s)
}

func (m Mode) String() string { return [...]string{"racy", "cas", "local-batch", "sharded"}[m] }

// Config is one concurrent run.
type Config struct {
	Spec    *core.Spec // process, bins, balls, seed, alpha
	Trial   uint64
	Workers int
	Mode    Mode
	Batch   uint64 // LocalBatch: decisions per publish
	Layout  Layout
	// MeasureEvery: every K-th ball of a worker is measured; 0 measures none.
	MeasureEvery uint64
	// Emulate runs Workers virtual workers in one goroutine, interleaved at
	// random by the trial's schedule stream: deterministic for a seed.
	Emulate bool
	// RecordAges keeps every ball's age in commit order (emulated runs
	// only: 4 bytes a ball).
	RecordAges bool
	// TraceAges stamps every ball of a goroutine run (racy and cas) with the
	// time-stamp counter and derives every ball's age in commit order from
	// the stamps (trace.go): TraceBytesPerBall bytes a ball.
	TraceAges bool

	// Tests only: noBackpressure turns sharded mode's backpressure off, to
	// show the age bound fails without it; stall makes an emulated worker
	// slow (emulate_sharded.go).
	noBackpressure bool
	stall          stall
}

// Result is a concurrent run's outcome: the final loads' metrics and what
// the workers saw.
type Result struct {
	*result.Result
	Workers  int    `json:"workers"`
	Mode     string `json:"mode"`
	Layout   string `json:"layout"`
	Emulated bool   `json:"emulated"`
	Retries  uint64 `json:"cas_retries"`
	// BinStaleness: balls that landed on the chosen bin between its read
	// and the ball's own increment (exact: from the value the add returns).
	BinStaleness Dist `json:"bin_staleness"`
	// GlobalStaleness: balls placed anywhere in that time (from the striped
	// totals): the age, in balls, of the information the decision used.
	GlobalStaleness Dist `json:"global_staleness"`
	// Descheduled: the global staleness of the measured balls (racy and cas
	// goroutine runs) whose read-to-add took over 20 µs of wall time, where
	// a ball normally takes well under one: their worker was off the CPU (or
	// stopped by the collector or a page fault) in between. Included in
	// GlobalStaleness too.
	Descheduled Dist     `json:"descheduled"`
	ShardTotals []uint64 `json:"shard_totals"`
	// WorkerPlaced: the balls each worker counted as committed in its own
	// cell of the striped counter — its share in racy, cas and local-batch
	// mode; in sharded mode the balls it committed into the bins it owns,
	// its own and those the others sent it. Run checks these tallies
	// against the final loads (each owner's against its bins' loads), so a
	// ball an owner dropped from a ring, or committed twice, fails the run.
	WorkerPlaced []uint64 `json:"worker_placed,omitempty"`
	MeasureEvery uint64   `json:"measure_every"`
	// Ages: with Config.RecordAges, every ball's age in commit order, and
	// their law (exact, not sampled).
	Ages   []uint32 `json:"-"`
	AgeLaw *Dist    `json:"age_law,omitempty"`
	// With Config.TraceAges (trace.go): Traced is set, TracedPreempted counts
	// the balls whose traced age exceeds 1000·W (their worker was off the
	// CPU between read and commit), TracedDisordered the stamps out of their
	// worker's program order (the clock went back between cores), and
	// TraceSeconds is the time the merge of the logs took, after the run.
	Traced           bool    `json:"traced,omitempty"`
	TracedPreempted  uint64  `json:"traced_preempted,omitempty"`
	TracedDisordered uint64  `json:"traced_disordered,omitempty"`
	TraceSeconds     float64 `json:"trace_seconds,omitempty"`
	// TracedMeasured: the traced ages of the measured balls, the very balls
	// whose GlobalStaleness the striped total gave (which counts the
	// commits made while the total was being read).
	TracedMeasured *Dist `json:"traced_measured,omitempty"`
	// With departures (departures.go): the failed compare-and-swaps of
	// departures, and the bins read for the sampled time averages.
	DepartureRetries uint64 `json:"departure_cas_retries,omitempty"`
	TimeSamples      uint64 `json:"time_samples,omitempty"`
	// Sharded mode: AgeBound, the age no ball reaches (ShardedAgeBound),
	// and BackpressureWaits, the times a worker stopped deciding to stay
	// within it (sharded.go).
	AgeBound          uint64 `json:"age_bound,omitempty"`
	BackpressureWaits uint64 `json:"backpressure_waits,omitempty"`
}

// descheduled: a measured ball whose read-to-add takes longer than this
// counts as one whose worker was descheduled in between.
const descheduled = 20 * time.Microsecond

// maxSamples bounds d for concurrent d-choice (a ball's samples live in a
// fixed array on the worker's stack).
const maxSamples = 16

// shards: per-shard totals over contiguous ranges of bins: bin i is in
// shard i >> shardShift(n).
const shards = 64

// shardShift makes i >> shift < shards for every bin i < n.
func shardShift(n uint64) uint {
	s := uint(0)
	for (n-1)>>s >= shards {
		s++
	}
	return s
}

// Check reports whether s can run concurrently.
func Check(s *core.Spec) error {
	c, ok := s.Proc.(process.Concurrent)
	if !ok {
		var names []string
		for _, e := range process.ConcurrentProcesses() {
			names = append(names, e.Name)
		}
		return fmt.Errorf("--process %s: balloc concurrent runs %s", s.Process.Name, andList(names))
	}
	if t, ok := s.Proc.(*process.TwoThinning); ok && t.Optimal {
		return fmt.Errorf("--threshold optimal: balloc concurrent runs a fixed θ (the optimal policy's table runs in balloc run)")
	}
	if !s.Initial.IsZero() {
		return fmt.Errorf("--initial %s: balloc concurrent starts from empty bins", s.Initial.String())
	}
	if !s.Weights.Unit() || s.Weights.Kind == process.WeightsConst {
		return fmt.Errorf("--weights: balloc concurrent places unit balls on 32-bit atomic loads")
	}
	if d := c.Concurrent().D; d > maxSamples {
		return fmt.Errorf("--d %d: balloc concurrent takes d ≤ %d", d, maxSamples)
	}
	if s.Bins > kernels.MaxBins {
		return fmt.Errorf("--bins %d: balloc concurrent holds at most %d bins", s.Bins, uint64(kernels.MaxBins))
	}
	if s.Dynamic.Supermarket() {
		return CheckDepartures(s)
	}
	if s.Balls >= 1<<32 {
		return fmt.Errorf("--balls %d: balloc concurrent's 32-bit atomic loads take fewer than 2^32 balls", s.Balls)
	}
	return nil
}

// CheckSharded reports whether --mode sharded can run W workers on s.
func CheckSharded(s *core.Spec, W int, emulated bool) error {
	if s.Bins > shardMeasured {
		return fmt.Errorf("--bins %d: --mode sharded takes at most 2^31 bins", s.Bins)
	}
	if !emulated && W > MaxShardedWorkers {
		return fmt.Errorf("--workers %d: --mode sharded keeps W² rings and takes at most %d workers (--emulate takes up to %d)", W, MaxShardedWorkers, MaxEmulatedShardedWorkers)
	}
	if emulated && W > MaxEmulatedShardedWorkers {
		return fmt.Errorf("--emulate %d: --mode sharded keeps a batch per pair of workers and emulates at most %d", W, MaxEmulatedShardedWorkers)
	}
	return nil
}

// Run performs one concurrent run.
func Run(cfg Config) (*Result, error) {
	s := cfg.Spec
	if err := Check(s); err != nil {
		return nil, err
	}
	ru, err := newRule(s)
	if err != nil {
		return nil, err
	}
	W := max(1, cfg.Workers)
	if s.Dynamic.Supermarket() {
		if cfg.TraceAges {
			return nil, CheckTrace(cfg.Mode, cfg.Emulate, true)
		}
		return runDepartures(cfg, W)
	}
	if cfg.Mode == LocalBatch && cfg.Batch == 0 {
		return nil, fmt.Errorf("--mode local-batch needs --batch B ≥ 1")
	}
	if cfg.Mode == Sharded {
		if err := CheckSharded(s, W, cfg.Emulate); err != nil {
			return nil, err
		}
	}
	var logs [][]uint64
	if cfg.TraceAges {
		if err := CheckTrace(cfg.Mode, cfg.Emulate, false); err != nil {
			return nil, err
		}
		logs = newTraceLogs(s.Balls, W) // before the clock starts: its pages are written once here
	}
	start := time.Now()
	var st *state
	switch {
	case cfg.Emulate && cfg.Mode == Sharded:
		st = emulateSharded(cfg, ru, W)
	case cfg.Emulate:
		st = emulate(cfg, ru, W)
	default:
		st = runWorkers(cfg, ru, W, logs)
	}
	elapsed := time.Since(start).Seconds()
	var disordered uint64
	var traceSeconds float64
	var measured Dist
	if logs != nil {
		t := time.Now()
		st.ages = make([]uint32, s.Balls)
		disordered = traceAges(logs, st.ages, nil)
		measured = measuredAges(logs, cfg.MeasureEvery)
		logs = nil
		traceSeconds = time.Since(t).Seconds()
	}
	loads := st.loads.Snapshot()
	total := uint64(0)
	for _, v := range loads {
		total += uint64(v)
	}
	if back := sum(st.backwards); back > 0 {
		return nil, fmt.Errorf("concurrent run lost balls: %d measured bins were read at a load higher than their own add returned", back)
	}
	if total != s.Balls {
		return nil, fmt.Errorf("concurrent run lost or doubled balls: the loads hold %d, %d were thrown", total, s.Balls)
	}
	placed := make([]uint64, W)
	for w := range W {
		placed[w] = st.placed.Load(w)
	}
	if err := checkTallies(cfg.Mode, loads, placed, s.Balls); err != nil {
		return nil, err
	}
	snap := result.MeasureLoads(loads, s.Balls, s.Alpha)
	name := "concurrent"
	if cfg.Emulate {
		name = "emulated"
	}
	res := &Result{
		Result:  engine.NewResult(s, cfg.Trial, name, snap, elapsed),
		Workers: W, Mode: cfg.Mode.String(), Layout: cfg.Layout.String(), Emulated: cfg.Emulate,
		Retries:           st.retries,
		BinStaleness:      merge(st.bin),
		GlobalStaleness:   merge(st.global),
		Descheduled:       merge(st.desched),
		MeasureEvery:      cfg.MeasureEvery,
		BackpressureWaits: sum(st.waits),
	}
	if cfg.Mode == Sharded {
		res.AgeBound = ShardedAgeBound(W)
	}
	if st.ages != nil {
		res.Ages = st.ages
		law := lawOf(st.ages)
		res.AgeLaw = &law
	}
	if cfg.TraceAges {
		res.Traced, res.TracedDisordered, res.TraceSeconds = true, disordered, traceSeconds
		res.TracedMeasured = &measured
		for _, a := range st.ages {
			if uint64(a) > preemptedAge*uint64(W) {
				res.TracedPreempted++
			}
		}
	}
	res.WorkerPlaced = placed
	res.ShardTotals = make([]uint64, shards)
	shift := shardShift(s.Bins)
	for i, v := range loads {
		res.ShardTotals[i>>shift] += uint64(v)
	}
	return res, nil
}

// checkTallies checks the workers' own counts of committed balls against
// the final loads: in sharded mode worker w's count against the loads of
// the bins it owns, else each worker's count against its share of m.
func checkTallies(mode Mode, loads []uint32, placed []uint64, m uint64) error {
	W := len(placed)
	want := make([]uint64, W)
	if mode == Sharded {
		mul := ownerMul(W, uint64(len(loads)))
		for b, v := range loads {
			want[owner(uint32(b), mul)] += uint64(v)
		}
	} else {
		for w := range W {
			want[w] = share(m, W, w)
		}
	}
	for w := range W {
		if placed[w] != want[w] {
			if mode == Sharded {
				return fmt.Errorf("concurrent run: worker %d counted %d balls committed into its bins, which hold %d", w, placed[w], want[w])
			}
			return fmt.Errorf("concurrent run: worker %d counted %d balls placed, its share is %d", w, placed[w], want[w])
		}
	}
	return nil
}

// state is what a run shares and what it measured.
type state struct {
	loads       *Loads
	placed      *Striped // balls placed, per worker
	retries     uint64
	bin, global []tally    // per worker
	backwards   []uint64   // per worker: measured bins whose load went down
	desched     []tally    // per worker: ages of measured balls whose read-to-add took over descheduled
	waits       []uint64   // per worker: sharded backpressure waits
	ages        []uint32   // emulated, RecordAges, or traced: every ball's age in commit order
	logs        [][]uint64 // traced: per worker, each ball's read and commit stamps
}

func newState(cfg Config, W int) *state {
	sinks := 0
	if cfg.Mode == Sharded && !cfg.Emulate {
		sinks = W
	}
	return &state{
		loads:     newLoads(cfg.Spec.Bins, cfg.Layout, sinks),
		placed:    NewStriped(W),
		bin:       make([]tally, W),
		global:    make([]tally, W),
		backwards: make([]uint64, W),
		desched:   make([]tally, W),
		waits:     make([]uint64, W),
	}
}

// share is worker w's number of balls: m/W, the first m mod W one more.
func share(m uint64, W, w int) uint64 {
	q, r := m/uint64(W), m%uint64(W)
	if uint64(w) < r {
		return q + 1
	}
	return q
}

func runWorkers(cfg Config, ru *rule, W int, logs [][]uint64) *state {
	st := newState(cfg, W)
	st.logs = logs
	retries := make([]uint64, W)
	var wg sync.WaitGroup
	start := make(chan struct{}) // every worker starts at once, not as it is spawned
	var rings []ring
	var done atomic.Int64
	if cfg.Mode == Sharded {
		rings = newShardRings(W)
	}
	for w := range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			labels := pprof.Labels("worker", strconv.Itoa(w))
			pprof.Do(context.Background(), labels, func(context.Context) {
				if cfg.Mode == Sharded {
					shardedWorker(cfg, ru, st, w, W, share(cfg.Spec.Balls, W, w), rings, &done)
					return
				}
				retries[w] = worker(cfg, ru, st, w, share(cfg.Spec.Balls, W, w))
			})
		}()
	}
	close(start)
	wg.Wait()
	for _, r := range retries {
		st.retries += r
	}
	return st
}

// worker places count balls; it returns its CAS retries.
func worker(cfg Config, ru *rule, st *state, w int, count uint64) uint64 {
	r := kernels.TrialStream(cfg.Spec.Seed, cfg.Trial, kernels.WorkerLane(w))
	cells, stride := st.loads.cells, st.loads.stride
	rd := &reader{cells: cells, stride: stride}
	n := cfg.Spec.Bins
	limit := ru.thinLimit(0)
	var base, basePlaced, nextChange uint64 // two-thinning: total last read, own count then, where the limit next moves
	var retries, placed uint64
	var b ball
	measure := cfg.MeasureEvery
	next := measure // the next measured ball (1-based count)
	// local-batch: the chosen bins of the batch, the loads they were read
	// at, and for measured balls the total at the batch's start.
	var pending, pendingV []uint32
	var pendingT []uint64
	var batchT uint64
	if cfg.Mode == LocalBatch {
		rd.cached, rd.cache, rd.epoch, rd.cur = true, make([]uint32, n), make([]uint32, n), 1
		pending = make([]uint32, 0, min(cfg.Batch, count))
		pendingV = make([]uint32, 0, min(cfg.Batch, count))
		pendingT = make([]uint64, 0, min(cfg.Batch, count))
	}
	mine := st.placed.cell(w) // this worker's published count
	nn := uint32(n)
	fast := cfg.Mode == Racy && ru.leastOnly()
	var log []uint64 // traced: the stamps of the balls still to place, two words a ball
	if st.logs != nil {
		log = st.logs[w]
	}
	for k := uint64(1); k <= count; k++ {
		if fast && k != next {
			// A run of plain racy d-choice balls up to the next measured
			// one, in a loop of its own.
			stop := count
			if measure > 0 {
				stop = min(stop, next-1)
			}
			if log != nil {
				placed = racyDChoiceTraced(&r, cells, stride, nn, ru.d, stop-k+1, placed, mine, log)
				log = log[2*(stop-k+1):]
			} else if ru.d == 2 && stride == 1 {
				placed = racyTwoChoicePacked(&r, cells, nn, stop-k+1, placed, mine)
			} else {
				placed = racyDChoice(&r, cells, stride, nn, ru.d, stop-k+1, placed, mine)
			}
			k = stop
			continue
		}
		ru.draw(&r, &b)
		// Two-thinning's limit: the striped total is read every 64 balls,
		// and as soon as the balls this worker placed since would move the
		// limit on their own (so one worker follows ⌈t/n + θ⌉ exactly).
		if ru.thinning() && (k%64 == 1 || base+placed-basePlaced >= nextChange) {
			base, basePlaced = st.placed.Sum(), placed
			limit, nextChange = ru.thinLimit(base), ru.thinNext(base)
		}
		measured := measure > 0 && k == next
		if measured {
			next += measure
		}
		if cfg.Mode == LocalBatch {
			if len(pending) == 0 {
				batchT = st.placed.Sum()
			}
			bin, v := ru.decide(&b, rd, limit)
			t := uint64(math.MaxUint64) // not measured
			if measured {
				t = batchT
			}
			pending, pendingV, pendingT = append(pending, bin), append(pendingV, v), append(pendingT, t)
			if uint64(len(pending)) == cfg.Batch || k == count {
				for q, bin := range pending {
					after := cells[uint64(bin)*stride].Add(1)
					placed++
					storeOwned64(mine, placed)
					if pendingT[q] != math.MaxUint64 {
						st.binStale(w, after, pendingV[q])
						st.global[w].add(st.placed.Sum() - pendingT[q] - 1)
					}
				}
				pending, pendingV, pendingT = pending[:0], pendingV[:0], pendingT[:0]
				rd.newEpoch()
			}
		} else {
			var t0 uint64
			var start time.Time
			if measured {
				start = time.Now()
				t0 = st.placed.Sum()
			}
			if log != nil {
				log[0] = tscRead()
			}
			bin, v := ru.decide(&b, rd, limit)
			var after uint32
			if cfg.Mode == Racy {
				after = cells[uint64(bin)*stride].Add(1)
			} else {
				for !cells[uint64(bin)*stride].CompareAndSwap(v, v+1) {
					retries++
					if log != nil {
						log[0] = tscRead() // the age counts from the last read
					}
					bin, v = ru.decide(&b, rd, limit)
				}
				after = v + 1
			}
			if log != nil {
				log[1] = tscOrdered()
				log = log[2:]
			}
			placed++
			storeOwned64(mine, placed)
			if measured {
				st.binStale(w, after, v)
				age := st.placed.Sum() - t0 - 1
				st.global[w].add(age)
				if time.Since(start) > descheduled {
					st.desched[w].add(age)
				}
			}
		}
	}
	return retries
}

// binStale records a measured ball's bin staleness: the balls that landed
// on its bin between the read of v and its own add, which returned after.
// A bin whose load went down (after ≤ v) lost an add, which Run reports.
func (st *state) binStale(w int, after, v uint32) {
	if after <= v {
		st.backwards[w]++
		return
	}
	st.bin[w].add(uint64(after - 1 - v))
}

// racyDChoice places count plain racy d-choice balls: the draws, reads,
// decision and add of the general path, in a loop small enough to keep its
// state in registers, with the choice made by masks (which of two loads is
// smaller is a coin flip for the branch predictor). It returns the worker's
// count of balls placed, published after every ball.
func racyDChoice(r *kernels.PCG32, cells []atomic.Uint32, stride uint64, n uint32, d int, count, placed uint64,
	mine *atomic.Uint64) uint64 {
	for ; count > 0; count-- {
		var i uint32
		if d == 2 {
			var j uint32
			i, j = r.Bounded2(n)
			m := -uint32(b2u(cells[uint64(j)*stride].Load() < cells[uint64(i)*stride].Load()))
			i = i&^m | j&m
		} else {
			i = r.Bounded(n)
			bi := cells[uint64(i)*stride].Load()
			for q := 1; q < d; q++ {
				j := r.Bounded(n)
				v := cells[uint64(j)*stride].Load()
				m := -uint32(b2u(v < bi))
				i, bi = i&^m|j&m, bi&^m|v&m
			}
		}
		cells[uint64(i)*stride].Add(1)
		placed++
		storeOwned64(mine, placed)
	}
	return placed
}

// racyTwoChoicePacked is racyDChoice for d = 2 on packed loads: the draws
// of up to shardStage balls are made first (the same stream), so each
// ball's reads wait only on the add before it, and a bin's index needs no
// multiply by the stride.
func racyTwoChoicePacked(r *kernels.PCG32, cells []atomic.Uint32, n uint32, count, placed uint64, mine *atomic.Uint64) uint64 {
	var idx [2 * shardStage]uint32
	for count > 0 {
		c := min(count, shardStage)
		r.FillBounded(idx[:2*c], n)
		for k := uint64(0); k < 2*c; k += 2 {
			i, j := idx[k], idx[k+1]
			m := -uint32(b2u(cells[j].Load() < cells[i].Load()))
			i = i&^m | j&m
			cells[i].Add(1)
			placed++
			storeOwned64(mine, placed)
		}
		count -= c
	}
	return placed
}

// b2u is 1 for true and 0 for false (a SETcc).
func b2u(b bool) uint8 {
	var x uint8
	if b {
		x = 1
	}
	return x
}

func sum(xs []uint64) uint64 {
	t := uint64(0)
	for _, x := range xs {
		t += x
	}
	return t
}
