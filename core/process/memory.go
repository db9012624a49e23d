package process

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Memory, the Caching process (Mitzenmacher, Prabhakar, Shah, "Load
// balancing with memory", FOCS 2002; heavily loaded: Los, Sauerwald,
// Sylvester, "Balanced allocations: caching and packing, twinning and
// thinning", SODA 2022, and "Balanced allocations with heterogeneous bins:
// the power of memory", SODA 2023). Each ball samples d bins uniformly with
// replacement and also sees the K bins of a cache; it goes to the least
// loaded of the d + K candidates. Then the cache is updated.
//
// The cache rule, --cache-rule:
//   - least-loaded (default): the cache keeps the K least loaded of the
//     candidates, loads read after the placement — MPS's rule ("each time a
//     ball is placed, the least loaded of that ball's choices after
//     placement is remembered and used as one of the possible choices for
//     the next ball", their abstract, which also speaks of "a small amount
//     of memory" beyond one bin: with K bins, the K least loaded). Los's
//     thesis summary of Memory says the same for d = K = 1 ("updates the
//     cache to store the least loaded of the two"; dimitrioslos.com,
//     research/phd-thesis/overview-processes).
//   - last-used: the cache holds the bin that received the ball, "a cache in
//     which the most recently used bin is stored" (LSS SODA 2022, abstract).
//     Defined for one cached bin (K = 1). The two rules differ only when the
//     ball's bin tied with the other candidate before the ball: then
//     least-loaded keeps the other bin (now the lighter by one) and
//     last-used keeps the bin just raised.
//
// Choices the papers leave open, decided here:
//   - Candidates are bins, not draws: a sample that is already cached, or
//     drawn twice, is one candidate, so the cache always holds K distinct
//     bins (K ≤ n).
//   - Ties, both for the ball and for the cache's boundary, are uniformly
//     random in law (the default rule of balloc's processes, README): the
//     loop breaks them by position, which gives the same law of the loads
//     (kernels/memory.go says why; core/engine/memory_test.go checks it
//     against the Markov chain with explicit random ties).
//   - The initial cache: K distinct bins drawn uniformly before the first
//     ball (kernels.FirstCache: a uniform bin per slot, redrawn while it
//     repeats an earlier slot; K PCG32.Bounded draws from the choices
//     stream when K = 1). The papers start from empty bins and do not say
//     what the memory holds before the first ball; all loads are 0 then,
//     so any K bins are "the least loaded", and uniform slots keep the
//     process exchangeable (its law invariant under renaming bins). An
//     empty cache (the first ball seeing only its d samples) is the other
//     reading; it changes the first balls' law (the exact-law test tells
//     the two apart at m = 6) and is not offered.
//
// K = 0 is d-Choice: it runs d-choice's loops and draws its stream (no
// cache is drawn), ball for ball (TestMemoryKZeroIsDChoice).
//
// Direct engine: kernels.Memory (the cached loads in registers for K = 1
// and for d = 1, K = 2; else O(d·K) a ball). Histogram engine: the process
// is exchangeable, so the counts per load and the loads of the K cached
// bins are a Markov chain of their own; kernels.LevelsMemory runs it ball
// by ball on ranks, a sample at level ℓ being a cached bin with probability
// (cached at ℓ)/count(ℓ) (exact; the cache starts at load 0, where any K
// bins are a uniform choice). Its stream differs from the direct engine's:
// the two agree in law (core/engine/memory_test.go).
//
// No fluid limit: none is standard for the cache (MPS analyse the lightly
// loaded case and a queueing limit, not this process at m ≫ n), so Memory
// has no Fluid capability. Unit balls only (no --weights).
//
// --batch b and --tau T --delay fixed (b-Batch's and τ-Delay's settings,
// as every load-reading process takes them: bbatch.go,
// batchany.go, delayparam.go, tau2.go; Los, Sauerwald, "Balanced
// allocations with the choice of noise", PODC 2022, §2, and SPAA 2022's
// b-Batch): every load memory reads, in the ball's comparison and in the
// cache rule, is the load it may see — the load at the batch's start, or
// the load τ balls ago — while the cache holds bins, read afresh at their
// view by every ball; placements go to the real loads. "Least loaded after
// placement" reads the view after the ball (the view the next ball reads),
// so --batch 1 and --tau 0 are memory itself, ball for ball. Ties stay
// uniformly random in law: bins with one view may differ in real load,
// and a tie among such bins is decided by a coin from the noise stream
// (kernels/memory_stale.go gives the rule and the other reading, a cache
// that remembers the load value it saw, which is not offered). Only
// --delay fixed: the other delays give every read its own age, and memory
// reads d + K loads a ball and K more for the cache — no rule says which
// ages those share. Direct engine only (a bin's real load and view tell it
// apart from others at its view); empty bins at the start (--initial: the
// positional ties need an exchangeable start, as the direct loop's, and
// the delay's record starts empty); no balls that leave (the frozen or
// past loads would change under the reads). K = 0 is d-choice with the same
// setting, its loops.

// Caching is the memory (Caching) process; Memory is the name of the footprint
// interface.
type Caching struct {
	D       int     // uniform samples per ball
	K       int     // cached bins
	Rule    string  // what the cache keeps: least-loaded or last-used
	Batch   uint64  // balls per batch (b-Batch's setting); 1: none
	Delayed Delayed // τ-Delay's setting, --delay fixed; τ = 0: none
}

const (
	cacheLeastLoaded = "least-loaded"
	cacheLastUsed    = "last-used"
)

var memoryEntry = &Entry{
	Name: "memory", Order: 47,
	Summary: "least loaded of d uniform bins and K cached bins; the cache keeps the K least loaded after the ball",
	Source:  "Mitzenmacher, Prabhakar, Shah 2002 (FOCS); Los, Sauerwald, Sylvester 2022 (SODA: Caching)",
	New:     func() Process { return &Caching{} },
}

func init() { Register(memoryEntry) }

func (p *Caching) Entry() *Entry { return memoryEntry }

func (p *Caching) Params() []*Param {
	return append([]*Param{
		DParam(&p.D, "uniform samples d per ball, 1 ≤ d ≤ bins").Def("1"),
		IntWant("k", "memory: cached bins K seen by every ball beside its samples, 0 ≤ K ≤ min(bins, 1024) (0: d-choice)", &p.K, 0, 1024,
			"an integer in [0, min(bins, 1024)]").Def("1").Listed(),
		Choice("cache-rule", "memory: what the cache keeps after each ball: least-loaded (the K least loaded candidates, Mitzenmacher et al.) or last-used (the bin that took the ball, K = 1)",
			&p.Rule, cacheLeastLoaded, cacheLastUsed).Def(cacheLeastLoaded).Listed().
			ShownWhen(func() bool { return p.Rule != cacheLeastLoaded }),
		BatchParam(&p.Batch),
	}, p.Delayed.params(p.Entry().Name)...)
}

func (p *Caching) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", p.D, su.Bins)
	}
	if uint64(p.K) > su.Bins {
		return fmt.Errorf("--k %d exceeds --bins %d: the cache holds K distinct bins, want 0 ≤ K ≤ bins", p.K, su.Bins)
	}
	if p.Rule == cacheLastUsed && p.K != 1 {
		return fmt.Errorf("--cache-rule last-used keeps the one bin that took the ball: want --k 1, not %d", p.K)
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	if p.K == 0 { // d-choice's setting, its delays included
		return p.Delayed.check(p.Entry().Name, su, delayRule{batch: p.Batch})
	}
	return checkFixedDelay(p.Entry().Name, &p.Delayed, su, p.Batch)
}

// stale reports whether memory's own loops read a view (K ≥ 1 in batches
// or with a delay).
func (p *Caching) stale() bool { return p.K > 0 && (p.Batch > 1 || p.Delayed.on()) }

// Memory: the cache and one ball's samples.
func (p *Caching) Memory(f *units.Footprint, m Mem) {
	if p.K > 0 {
		f.Add(fmt.Sprintf("--d %d", p.D), "lower --d", uint64(p.D+p.K)*4)
	}
	if p.K == 0 {
		p.dChoice().Memory(f, m)
		return
	}
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

type memoryLoop[L kernels.Load] struct {
	r              *kernels.PCG32
	d              int
	cache, samples []uint32
	lastUsed       bool
}

func (l *memoryLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.Memory(loads, l.r, c, l.d, l.cache, l.samples, l.lastUsed, maxLoad)
}

// memoryStale is memory reading frozen (batch) or past (delay) loads.
type memoryStale[L kernels.Load] struct {
	r, coins *kernels.PCG32
	d        int
	cache    []uint32
	lastUsed bool
	sc       *kernels.MemoryScratch
	batch    *kernels.Batch[L]
	delay    *kernels.Delay[L]
}

func (l *memoryStale[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.StaleMemory(loads, l.r, l.coins, c, l.d, l.cache, l.lastUsed, l.sc, l.batch, l.delay, maxLoad)
}

// memoryBatched adds the batch ends' gaps (max_gap).
type memoryBatched[L kernels.Load] struct{ memoryStale[L] }

func (l *memoryBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

func memoryDirect[L kernels.Load](p *Caching, tr *Trial) Stepper[L] {
	if p.K == 0 {
		if p.Delayed.on() && p.D > 1 {
			return delayedDirect[L](&p.Delayed, p.D, nil, tr)
		}
		return dChoiceDirect[L](p.D, p.Batch, tr)
	}
	if p.stale() {
		st := memoryStale[L]{r: tr.Choices, coins: tr.Noise, d: p.D, cache: make([]uint32, p.K),
			lastUsed: p.Rule == cacheLastUsed, sc: kernels.NewMemoryScratch(p.D, p.K)}
		kernels.FirstCache(st.cache, uint32(tr.Bins), tr.Choices)
		if p.Batch > 1 {
			st.batch = kernels.NewBatch[L](int(tr.Bins), p.Batch, false)
			return &memoryBatched[L]{st}
		}
		st.delay = delayState[L](&p.Delayed, tr)
		return &st
	}
	l := &memoryLoop[L]{r: tr.Choices, d: p.D, cache: make([]uint32, p.K), lastUsed: p.Rule == cacheLastUsed}
	kernels.FirstCache(l.cache, uint32(tr.Bins), tr.Choices)
	if p.D > 1 || p.K > 1 {
		l.samples = make([]uint32, p.D)
	}
	return l
}

func (p *Caching) Direct32(tr *Trial) Stepper[uint32] { return memoryDirect[uint32](p, tr) }
func (p *Caching) Direct64(tr *Trial) Stepper[uint64] { return memoryDirect[uint64](p, tr) }

type memoryLevels struct {
	r        *kernels.PCG32
	d        int
	cache    []uint64
	cands    []kernels.MemoryCandidate
	lastUsed bool
	started  bool
}

func (l *memoryLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	if !l.started { // the cache's loads in the start (--initial's vector)
		kernels.StartLevelsMemory(lv, l.r, l.cache)
		l.started = true
	}
	c := min(want, Chunk)
	kernels.LevelsMemory(lv, l.r, c, l.d, l.cache, l.cands, l.lastUsed)
	return c
}

// Levels: the counts per load and the loads of the cached bins, ball by
// ball on ranks (kernels.LevelsMemory); K = 0 is d-choice's.
func (p *Caching) Levels(tr *Trial) LevelStepper {
	if p.K == 0 {
		return p.dChoice().Levels(tr)
	}
	return &memoryLevels{r: tr.Choices, d: p.D, cache: make([]uint64, p.K), cands: make([]kernels.MemoryCandidate, 0, p.D+p.K), lastUsed: p.Rule == cacheLastUsed}
}

// dChoice is the d-choice process K = 0 runs, in the same setting.
func (p *Caching) dChoice() *DChoice {
	return &DChoice{D: p.D, Dims: 1, Populated: 1, Batch: p.Batch, Delayed: p.Delayed}
}

// HistogramWhy: in batches or delayed, a bin's real load and its view
// tell it apart from the others at its view; the level counts do not hold
// that. K = 0: d-choice's reasons.
func (p *Caching) HistogramWhy() string {
	switch {
	case p.K == 0:
		return p.dChoice().HistogramWhy()
	case p.Batch > 1:
		return p.Entry().Name + " in batches (--batch) runs on the direct engine (a bin's load now and at the batch's start tell it apart from others at its frozen load)"
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}

// InitialWhy: in batches the loop's positional ties need an exchangeable
// start, which an --initial vector is not in general (and memory from one
// runs on the histogram engine, which batches do not); a delay's record
// starts from empty bins.
func (p *Caching) InitialWhy() string {
	switch {
	case p.K == 0:
		return p.dChoice().InitialWhy()
	case p.Batch > 1:
		return p.Entry().Name + " in batches (--batch) starts from empty bins: its ties by position are random ties only from a start where bins are interchangeable, and from an unequal start memory runs on the histogram engine, which batches do not"
	}
	return p.Delayed.initialWhy(p.Entry().Name)
}

// Content: a replay file's ages (K = 0 with --delay replay).
func (p *Caching) Content() (map[string]string, []string) { return p.Delayed.content() }

// HistogramSeconds: ball by ball on ranks, one level search a sample: 11
// ns a ball at d = K = 1, 24.5, 24.8 and 30.2 at (d, K) = (1, 2), (2, 1),
// (2, 2) — CPU time (user seconds) at n = 10^6, m = 4·10^7, one worker, on
// the shared 2-core machine, whose wall times were inflated by its load.
func (p *Caching) HistogramSeconds(n, m, k uint64) float64 {
	switch {
	case p.K == 0:
		return p.dChoice().HistogramSeconds(n, m, k)
	case p.D == 1 && p.K == 1:
		return float64(m) * 11e-9
	}
	return float64(m) * 8.3e-9 * float64(p.D+p.K)
}

// DirectFactor, in CPU time at n = 10^6 beside two-choice's 4.45 ns a ball
// (m = 2·10^8): d = K = 1 took 6.0 ns (1.35), (d, K) = (1, 2), (2, 1),
// (2, 2) took 16.6, 12.6 and 19.9 (m = 10^8): about 1.1·(d + K).
func (p *Caching) DirectFactor() float64 {
	switch {
	case p.K == 0:
		return p.dChoice().DirectFactor()
	case p.D == 1 && p.K == 1:
		return 1.35
	}
	return 1.1 * float64(p.D+p.K)
}

// PositionalTies: the direct loops break ties by position (kernels/memory.go),
// the law of random ties only while the bins are exchangeable.
func (p *Caching) PositionalTies() string {
	if p.K == 0 {
		return "" // d-choice's loops: random ties
	}
	return "memory's direct loop breaks ties by position, which is the law of random ties only when every bin starts at the same load"
}
