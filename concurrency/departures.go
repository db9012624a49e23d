package concurrency

import (
	"context"
	"fmt"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/kernels"
)

// Concurrent allocation with departures: the supermarket model
// (core/dynamic.go has its settings, kernels/dynamic.go the
// sequential event loops) run by W workers on the shared loads.
//
// The sequential model is uniformized: n queues, arrivals at rate λn placed
// by the process, each non-empty queue serving at rate 1, watched at the
// events of one Poisson process of rate n(1+λ) — an event is an arrival
// with probability λ/(1+λ), else a departure from a uniformly random bin,
// a real one when that bin is non-empty (Mitzenmacher, "The power of two
// choices in randomized load balancing", IEEE TPDS 12(10), 2001, §3).
//
// Concurrently (the choices made here, where the sequential model has no
// workers):
//   - The E events are split over the workers as balls are (share: E/W
//     each, the first E mod W one more), and --warmup's events likewise.
//     Each worker draws its own uniformized event stream from its own lane
//     (kernels.WorkerLane(w), as its balls are seeded today): per event the
//     arrival coin (Bernoulli.Flip), then for an arrival the placement's
//     draws (its β coin when 0 < β < 1, then D PCG32.Bounded(n) on a
//     two-choice-like step, one on a one-choice step; thinning one
//     Bounded(n) a sample tried), for a departure one
//     PCG32.Bounded(n) — kernels.SupermarketDirect's stream, so one worker
//     on that lane is SupermarketDirect draw for draw.
//   - An arrival reads its samples with atomic loads (racy reads, as a
//     ball does today), takes the least loaded (the first of the least,
//     as the sequential loop), and commits with an atomic add (--mode
//     racy) or a compare-and-swap against the load read, re-read and
//     re-decided on failure (--mode cas, counted as cas_retries).
//   - Two-thinning (kernels.Placement.Thetas) keeps sample j when n·load <
//     present + ⌈n·θ_j⌉ (kernels.ThinKeep, the sequential loop's integer
//     test), drawing the next sample only when one is rejected, as that
//     loop does. The balls present are each worker's arrivals minus
//     departures, published to a striped counter of their own: a worker
//     reads its sum before an arrival at least 64 events after its last
//     read and follows its own changes in between (so one worker follows
//     the count exactly); an emulated worker knows it exactly.
//   - A departure decrements its bin only if it is non-empty, atomically,
//     in both modes: a compare-and-swap loop from the load it reads (failed
//     swaps counted as departure_cas_retries), so no load goes negative and
//     a departure drawn at an empty queue is a no-op, as in the sequential
//     model.
//
// So with arrivals committed A and departures committed D the final loads
// hold exactly A − D balls; Run checks it and fails otherwise.
//
// What is measured, only at every --measure-every-th event of a worker
// (the per-event loop has no interface call and allocates nothing):
//   - Ages, when that event is an arrival: the load changes (arrivals and
//     departures committed, by any worker) between its reads and its own
//     commit, from the striped counter each worker publishes its own count
//     of changes to; its bin staleness is |after − 1 − v|, the net change of
//     its bin in that time (arrivals there minus departures there: with
//     departures the load can go down as well as up). Emulated runs tally
//     every arrival's age exactly (AgeLaw).
//   - Time averages: before the event (after the worker's share of the
//     warmup), SampleBins consecutive bins from a uniformly random start,
//     drawn from the worker's own sample stream (sampleLane, not its event
//     stream, so --measure-every never changes the events), are read and
//     tallied by load into one of depBatches batches by the event's place
//     in the worker's post-warmup events. The fraction of those reads at
//     load ≥ i estimates the time-averaged fraction of bins with load ≥ i
//     over the run after the warmup (the state at event times weighs each
//     state by its expected holding time, kernels.Tally), with batch-means
//     standard errors — sampling noise included, so the sequential engine's
//     exact time averages are tighter.
//   - Final fractions of bins with load ≥ i, the mean and the largest
//     queue and the gap (max − present/n) are read from the final loads;
//     the largest load ever held is each worker's largest load after its
//     own adds.

// depBatches is the number of batches the sampled time averages are cut
// into, for their standard errors (as the sequential engine's 32).
const depBatches = 32

// SampleBins is the bins read at a measured event for the time averages:
// consecutive (one cache line of packed loads), from a uniform start.
const SampleBins = 16

// sampleLane is worker w's stream of time-average sample positions, apart
// from its events (kernels.WorkerLane) and from every other lane.
func sampleLane(w int) kernels.Lane { return kernels.Lane(1<<40 + uint64(w)) }

// CheckDepartures reports whether the supermarket spec s can run
// concurrently (called by Check): its placement must be the least of D
// samples with probability β or thinning's (kernels.Placement), which the
// workers decide on racy reads.
func CheckDepartures(s *core.Spec) error {
	pl, ok := s.Proc.(process.Placer)
	if !ok {
		return fmt.Errorf("--arrival-rate: balloc concurrent runs departures for %s; %s has no supermarket reading", andList(DepartureProcesses()), s.Process.Name)
	}
	p, why := pl.Placement()
	switch {
	case why != "":
		return fmt.Errorf("--arrival-rate: %s", why)
	case !placementBuilt(p):
		return fmt.Errorf("--arrival-rate: balloc concurrent runs departures for %s; %s is not built concurrently", andList(DepartureProcesses()), s.Process.Name)
	case s.Dynamic.Stale():
		return fmt.Errorf("--arrival-rate: balloc concurrent's staleness is its workers' own; --update-period, --update-delay and --update-individual are balloc run's")
	}
	return nil
}

// placementBuilt: the workers place by p (no heavy-rank test, no retries,
// at most maxSamples thinning samples).
func placementBuilt(p kernels.Placement) bool {
	return p.Heavy == 0 && !p.Retry && len(p.Thetas) < maxSamples
}

// DepartureProcesses are the processes with a concurrent rule whose
// placement, at their defaults, the workers run with departures, in
// catalogue order.
func DepartureProcesses() []string {
	var names []string
	for _, e := range process.ConcurrentProcesses() {
		pl, ok := e.New().(process.Placer)
		if !ok {
			continue
		}
		if p, why := pl.Placement(); why == "" && placementBuilt(p) {
			names = append(names, e.Name)
		}
	}
	return names
}

// CheckDeparturesMode reports whether mode can run departures.
//
// Sharded mode is refused: there only a bin's owner writes it, so a
// departure either travels to the owner like a foreign ball (built and
// measured: it reaches the queue late, when it may have emptied, so service
// is lost as well as the arrivals' information aging; emulated, n = 10^4,
// λ = 0.9, W = 64: mean queue 2.64, ages ~9500 events, against racy's 2.34
// at ages ~40 and 2.37 sequential) or
// each owner serves its own bins from its share of the events (then an
// owner that runs ahead and finishes stops serving while others still send
// it arrivals: 2 goroutines on this 2-core machine left half the bins at 16
// and more). Neither is the model; both were taken out.
func CheckDeparturesMode(m Mode) error {
	switch m {
	case Racy, CAS:
		return nil
	case Sharded:
		return fmt.Errorf("--mode sharded: departures (--arrival-rate) run in --mode racy and cas; in sharded mode a bin's events commit late through its owner's batches, and late departures change the service itself, not only what arrivals see")
	}
	return fmt.Errorf("--mode %s: departures (--arrival-rate) run in --mode racy and cas; a batch decided on the worker's own snapshot has no reading of the departures under it", m)
}

// depRule is the supermarket's coins and placement, set up once per run.
type depRule struct {
	arrive, beta kernels.Bernoulli
	d            int
	one, mixed   bool // as kernels' placeRule: one sample per ball; a β coin per ball
	n            uint32
	// thin: thinning's ⌈n·θ_j⌉ (nil: the least of D). Sample j is kept when
	// n·load < present + thin[j] (kernels.ThinKeep), the last one whatever
	// its load; the samples are drawn one at a time, as the sequential loop
	// draws them.
	thin []int64
}

func newDepRule(s *core.Spec) (*depRule, error) {
	p, _ := s.Proc.(process.Placer).Placement() // CheckDepartures checked it
	a, err := kernels.NewBernoulli(s.Dynamic.ArrivalRate / (1 + s.Dynamic.ArrivalRate))
	if err != nil {
		return nil, err
	}
	b, err := kernels.NewBernoulli(p.Beta)
	if err != nil {
		return nil, err
	}
	one := p.D == 1 || p.Beta == 0
	dr := &depRule{arrive: a, beta: b, d: p.D, one: one, mixed: !one && p.Beta < 1, n: uint32(s.Bins)}
	if len(p.Thetas) > 0 {
		if dr.thin, err = kernels.ThinConstants(s.Bins, p.Thetas); err != nil {
			return nil, err
		}
	}
	return dr, nil
}

// draw draws an arrival's samples into b (after its arrival coin):
// thinning's first sample only (decideThin draws the others as needed).
func (dr *depRule) draw(r *kernels.PCG32, b *ball) {
	if dr.thin != nil {
		b.k, b.idx[0] = 1, r.Bounded(dr.n)
		return
	}
	two := !dr.one
	if dr.mixed {
		two = dr.beta.Flip(r)
	}
	b.k = 1
	if two {
		b.k = dr.d
	}
	for i := range b.k {
		b.idx[i] = r.Bounded(dr.n)
	}
}

// decide is the least loaded of b's samples (the first of the least) and
// the load it was read at.
func (dr *depRule) decide(b *ball, rd *reader) (uint32, uint32) {
	best, bv := b.idx[0], rd.get(b.idx[0])
	for _, j := range b.idx[1:b.k] {
		if v := rd.get(j); v < bv {
			best, bv = j, v
		}
	}
	return best, bv
}

// decideOn is the decision of an emulated worker, which knows the balls
// present exactly.
func (dr *depRule) decideOn(r *kernels.PCG32, b *ball, rd *reader, present uint64) (uint32, uint32) {
	if dr.thin != nil {
		return dr.decideThin(r, b, rd, present)
	}
	return dr.decide(b, rd)
}

// decideThin is thinning's decision with present balls: the first sample
// kept, drawing the next from r when one is rejected (the samples drawn so
// far are kept in b, so a compare-and-swap's retry decides again on them
// first). It returns the bin and the load it was read at.
func (dr *depRule) decideThin(r *kernels.PCG32, b *ball, rd *reader, present uint64) (uint32, uint32) {
	n, last := uint64(dr.n), len(dr.thin)-1
	for j := 0; ; j++ {
		if j == b.k {
			b.idx[j] = r.Bounded(dr.n)
			b.k++
		}
		v := rd.get(b.idx[j])
		if j > last || kernels.ThinKeep(n, uint64(v), present, dr.thin[j]) {
			return b.idx[j], v
		}
	}
}

// presentOf reads the balls present from a striped sum of the workers'
// arrivals minus departures (each cell wraps below zero; so may a racy sum,
// read cell by cell, which is then taken as 0).
func presentOf(sum uint64) uint64 {
	if int64(sum) < 0 {
		return 0
	}
	return sum
}

// loadTally counts reads by load, in a slice that grows on demand (loads
// stay small; ages use tally).
type loadTally []uint64

func (t *loadTally) add(v uint64) {
	if v >= uint64(len(*t)) {
		grown := make(loadTally, max(v+1, 2*uint64(len(*t))))
		copy(grown, *t)
		*t = grown
	}
	(*t)[v]++
}

// sampler tallies a worker's time-average reads by batch.
type sampler struct {
	r           kernels.PCG32
	warm, count uint64 // the worker's warmup events and all its events
	batches     [depBatches]loadTally
	reads       uint64
}

func newSampler(cfg Config, w int, warm, count uint64) *sampler {
	return &sampler{r: kernels.TrialStream(cfg.Spec.Seed, cfg.Trial, sampleLane(w)), warm: warm, count: count}
}

// sample reads the bins for event k (1-based) of the worker, before it
// happens; nothing in the warmup.
func (sp *sampler) sample(k uint64, rd *reader, n uint32) {
	if k <= sp.warm {
		return
	}
	// (k − warm − 1)·depBatches/(count − warm), in floating point: the
	// product overflows 64 bits beyond 2^59 events.
	b := min(int(float64(k-sp.warm-1)/float64(sp.count-sp.warm)*depBatches), depBatches-1)
	i := sp.r.Bounded(n)
	for range min(SampleBins, n) {
		sp.batches[b].add(uint64(rd.get(i)))
		if i++; i == n {
			i = 0
		}
	}
	sp.reads += uint64(min(SampleBins, n))
}

// depState is a departures run's shared state and what it measured, per
// worker where goroutines write it.
type depState struct {
	*state
	arrivals, departures []uint64
	depRetries           []uint64
	maxEver              []uint32
	samplers             []*sampler
	retries              []uint64
	ageLaw               tally    // emulated: every arrival's age
	net                  *Striped // thinning: each worker's arrivals minus departures, wrapping
}

func newDepState(cfg Config, W int) *depState {
	return &depState{state: newState(cfg, W), arrivals: make([]uint64, W), departures: make([]uint64, W),
		depRetries: make([]uint64, W), maxEver: make([]uint32, W), samplers: make([]*sampler, W), retries: make([]uint64, W),
		net: NewStriped(W)}
}

// runDepartures is Run for a supermarket spec (Run checked it).
func runDepartures(cfg Config, W int) (*Result, error) {
	s := cfg.Spec
	if err := CheckDeparturesMode(cfg.Mode); err != nil {
		return nil, err
	}
	dr, err := newDepRule(s)
	if err != nil {
		return nil, err
	}
	E, warm := s.Dynamic.Events, s.Dynamic.WarmupEvents(s.Bins)
	start := time.Now()
	var st *depState
	if cfg.Emulate {
		st = emulateDepartures(cfg, dr, W, warm)
	} else {
		st = newDepState(cfg, W)
		var wg sync.WaitGroup
		begin := make(chan struct{})
		for w := range W {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-begin
				pprof.Do(context.Background(), pprof.Labels("worker", strconv.Itoa(w)), func(context.Context) {
					depWorker(cfg, dr, st, w, share(E, W, w), share(warm, W, w))
				})
			}()
		}
		close(begin)
		wg.Wait()
	}
	elapsed := time.Since(start).Seconds()
	loads := st.loads.Snapshot()
	total, top := uint64(0), uint32(0)
	for _, v := range loads {
		total += uint64(v)
		top = max(top, v)
	}
	A, D := sum(st.arrivals), sum(st.departures)
	if total != A-D || uint64(top) > A {
		return nil, fmt.Errorf("concurrent run lost or invented balls: the loads hold %d (largest %d), %d arrivals and %d departures were committed", total, top, A, D)
	}
	snap := result.MeasureLoads(loads, total, s.Alpha)
	name := "concurrent"
	if cfg.Emulate {
		name = "emulated"
	}
	res := &Result{
		Result:  engine.NewResult(s, cfg.Trial, name, snap, elapsed),
		Workers: W, Mode: cfg.Mode.String(), Layout: cfg.Layout.String(), Emulated: cfg.Emulate,
		Retries: sum(st.retries), DepartureRetries: sum(st.depRetries),
		BinStaleness: merge(st.bin), GlobalStaleness: merge(st.global), Descheduled: merge(st.desched),
		MeasureEvery: cfg.MeasureEvery,
	}
	if cfg.Emulate {
		law := merge([]tally{st.ageLaw})
		res.AgeLaw = &law
	}
	res.ShardTotals = make([]uint64, shards)
	shift := shardShift(s.Bins)
	for i, v := range loads {
		res.ShardTotals[i>>shift] += uint64(v)
	}
	d := s.Dynamic
	dy := &result.Dynamic{Model: "supermarket", Events: E, Arrivals: A, Departures: D, ArrivalRate: d.ArrivalRate,
		Time: float64(E) / d.EventRate(s.Bins), Warmup: d.Warmup}
	for _, m := range st.maxEver {
		dy.MaxEver = max(dy.MaxEver, float64(m))
	}
	// Final fractions ≥ i from the histogram (ascending loads).
	for k := uint32(1); k <= top; k++ {
		c := uint64(0)
		for _, l := range snap.Histogram {
			if l.Load >= float64(k) {
				c += l.Count
			}
		}
		dy.FinalAtLeast = append(dy.FinalAtLeast, float64(c)/float64(s.Bins))
	}
	res.TimeSamples = sampledAverages(dy, st.samplers)
	dy.Sojourn, dy.SojournSE = dy.MeanQueue/d.ArrivalRate, dy.MeanQueueSE/d.ArrivalRate
	res.Result.Dynamic = dy
	if s.KeepLoads {
		res.Result.Loads = make([]float64, len(loads))
		for i, v := range loads {
			res.Result.Loads[i] = float64(v)
		}
	}
	return res, nil
}

// sampledAverages sets dy's time averages (AtLeast, MeanQueue, their
// batch-means standard errors, BatchLag1) from the workers' sampled reads,
// batch b of every worker making batch b, and returns the reads.
func sampledAverages(dy *result.Dynamic, sps []*sampler) uint64 {
	var batches []loadTally // per batch with reads: reads by load
	reads := uint64(0)
	for b := range depBatches {
		var t loadTally
		for _, sp := range sps {
			if sp == nil {
				continue
			}
			for v, c := range sp.batches[b] {
				if c > 0 {
					for uint64(len(t)) <= uint64(v) {
						t = append(t, 0)
					}
					t[v] += c
				}
			}
		}
		if len(t) > 0 {
			batches = append(batches, t)
		}
	}
	for _, sp := range sps {
		if sp != nil {
			reads += sp.reads
		}
	}
	if len(batches) == 0 {
		return 0
	}
	levels := 0
	for _, t := range batches {
		levels = max(levels, len(t)-1)
	}
	B := float64(len(batches))
	counts := make([]float64, len(batches))
	for b, t := range batches {
		for _, c := range t {
			counts[b] += float64(c)
		}
	}
	all := 0.0
	for _, c := range counts {
		all += c
	}
	// Each batch's reads at load ≥ i, as suffix sums of its tally (O(levels)
	// a batch: a run with long queues has many levels).
	for _, t := range batches {
		for v := len(t) - 2; v >= 0; v-- {
			t[v] += t[v+1]
		}
	}
	queue := make([]float64, len(batches))
	dy.AtLeast, dy.AtLeastSE = make([]float64, levels), make([]float64, levels)
	f := make([]float64, len(batches))
	for i := 1; i <= levels; i++ {
		hits, mean := 0.0, 0.0
		for b, t := range batches {
			c := 0.0
			if i < len(t) {
				c = float64(t[i])
			}
			hits += c
			f[b] = c / counts[b]
			mean += f[b] / B
			queue[b] += f[b]
		}
		dy.AtLeast[i-1] = hits / all
		dy.AtLeastSE[i-1] = stats.StdErr(f, mean)
		dy.MeanQueue += dy.AtLeast[i-1]
	}
	qm := 0.0
	for _, q := range queue {
		qm += q / B
	}
	dy.MeanQueueSE = stats.StdErr(queue, qm)
	dy.BatchLag1 = stats.Lag1(queue, qm)
	dy.Batches = len(batches)
	return reads
}

// depWorker runs count events of the supermarket model on the shared loads
// (the file comment has the semantics), the first warm of them its warmup.
func depWorker(cfg Config, dr *depRule, st *depState, w int, count, warm uint64) {
	r := kernels.TrialStream(cfg.Spec.Seed, cfg.Trial, kernels.WorkerLane(w))
	cells, stride := st.loads.cells, st.loads.stride
	rd := &reader{cells: cells, stride: stride}
	n := dr.n
	sp := newSampler(cfg, w, warm, count)
	st.samplers[w] = sp
	mine := st.placed.cell(w)
	cas := cfg.Mode == CAS
	// Thinning reads the balls present: the workers' striped net counts,
	// summed every 64 events and followed by this worker's own changes in
	// between (so one worker follows the count exactly).
	thin := dr.thin != nil
	myNet := st.net.cell(w)
	var base, baseOwn, nextRead uint64 // the striped sum last read; own net then; the event of the next read
	var arr, dep, retries, depRetries uint64
	var top uint32
	var b ball
	measure := cfg.MeasureEvery
	next := measure
	for k := uint64(1); k <= count; k++ {
		measured := k == next
		if measured {
			next += measure
			sp.sample(k, rd, n)
		}
		if !dr.arrive.Flip(&r) {
			c := &cells[uint64(r.Bounded(n))*stride]
			for {
				v := c.Load()
				if v == 0 {
					break // an empty queue: nothing leaves
				}
				if c.CompareAndSwap(v, v-1) {
					dep++
					storeOwned64(mine, arr+dep)
					if thin {
						storeOwned64(myNet, arr-dep)
					}
					break
				}
				depRetries++
			}
			continue
		}
		dr.draw(&r, &b)
		var t0 uint64
		var begin time.Time
		if measured {
			begin = time.Now()
			t0 = st.placed.Sum()
		}
		var bin, v uint32
		if thin {
			if k >= nextRead {
				base, baseOwn, nextRead = st.net.Sum(), arr-dep, k+64
			}
			bin, v = dr.decideThin(&r, &b, rd, presentOf(base+arr-dep-baseOwn))
		} else {
			bin, v = dr.decide(&b, rd)
		}
		var after uint32
		if !cas {
			after = cells[uint64(bin)*stride].Add(1)
		} else {
			for !cells[uint64(bin)*stride].CompareAndSwap(v, v+1) {
				retries++
				if thin {
					base, baseOwn = st.net.Sum(), arr-dep
					bin, v = dr.decideThin(&r, &b, rd, presentOf(base))
				} else {
					bin, v = dr.decide(&b, rd)
				}
			}
			after = v + 1
		}
		top = max(top, after)
		arr++
		storeOwned64(mine, arr+dep)
		if thin {
			storeOwned64(myNet, arr-dep)
		}
		if measured {
			st.bin[w].add(netChange(after, v))
			age := st.placed.Sum() - t0 - 1
			st.global[w].add(age)
			if time.Since(begin) > descheduled {
				st.desched[w].add(age)
			}
		}
	}
	st.arrivals[w], st.departures[w], st.retries[w], st.depRetries[w], st.maxEver[w] = arr, dep, retries, depRetries, top
}

// netChange is |after − 1 − v|: the net change of a bin's load between its
// read at v and the add that returned after.
func netChange(after, v uint32) uint64 {
	if after > v {
		return uint64(after - 1 - v)
	}
	return uint64(v-after) + 1
}

// emulateDepartures is the supermarket model with W virtual workers in one
// goroutine, interleaved as emulate does (the schedule stream picks which
// unfinished worker takes the next step, uniformly): a step either draws a
// worker's next event — a departure is committed in that same step (its
// compare-and-swap loop is atomic), an arrival reads and decides — or
// commits the worker's pending arrival (an add; in cas mode, when the bin
// moved since its read, a read and decision again, committed at a later
// step). With W = 1 every arrival commits at once: the sequential model on
// the worker's lane, draw for draw. Every arrival's age is tallied exactly:
// the load changes committed between its (last) read and its commit.
func emulateDepartures(cfg Config, dr *depRule, W int, warm uint64) *depState {
	st := newDepState(cfg, W)
	s := cfg.Spec
	sched := kernels.TrialStream(s.Seed, cfg.Trial, kernels.LaneSchedule)
	cells, stride := st.loads.cells, st.loads.stride
	rd := &reader{cells: cells, stride: stride}
	type vworker struct {
		r        kernels.PCG32
		left, k  uint64 // events still to begin; events begun
		b        ball
		pending  bool // an arrival read and decided, not committed
		bin, v   uint32
		t0       uint64
		measured bool
	}
	vs := make([]vworker, W)
	active := make([]int, 0, W)
	for w := range W {
		count := share(s.Dynamic.Events, W, w)
		vs[w] = vworker{r: kernels.TrialStream(s.Seed, cfg.Trial, kernels.WorkerLane(w)), left: count}
		st.samplers[w] = newSampler(cfg, w, share(warm, W, w), count)
		if count > 0 {
			active = append(active, w)
		}
	}
	changes, present := uint64(0), uint64(0) // load changes committed, balls present: exact in one goroutine
	n, measure := dr.n, cfg.MeasureEvery
	for len(active) > 0 {
		a := int(sched.Bounded(uint32(len(active))))
		w := active[a]
		vw := &vs[w]
		if !vw.pending {
			vw.k++
			vw.left--
			vw.measured = measure > 0 && vw.k%measure == 0
			if vw.measured {
				st.samplers[w].sample(vw.k, rd, n)
			}
			if !dr.arrive.Flip(&vw.r) {
				c := &cells[uint64(vw.r.Bounded(n))*stride]
				if v := c.Load(); v > 0 {
					c.Store(v - 1)
					changes++
					present--
					st.departures[w]++
					st.placed.Store(w, st.arrivals[w]+st.departures[w])
				}
			} else {
				dr.draw(&vw.r, &vw.b)
				vw.t0 = changes
				vw.bin, vw.v = dr.decideOn(&vw.r, &vw.b, rd, present)
				vw.pending = true
			}
		} else {
			c := &cells[uint64(vw.bin)*stride]
			if cfg.Mode == CAS && c.Load() != vw.v {
				st.retries[w]++
				vw.t0 = changes
				vw.bin, vw.v = dr.decideOn(&vw.r, &vw.b, rd, present)
				continue
			}
			after := c.Add(1)
			st.ageLaw.add(changes - vw.t0)
			changes++
			present++
			st.arrivals[w]++
			st.placed.Store(w, st.arrivals[w]+st.departures[w])
			st.maxEver[w] = max(st.maxEver[w], after)
			if vw.measured {
				st.bin[w].add(netChange(after, vw.v))
				st.global[w].add(changes - vw.t0 - 1)
			}
			vw.pending = false
		}
		if vw.left == 0 && !vw.pending {
			active[a] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	return st
}
