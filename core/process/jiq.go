package process

import (
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Join-Idle-Queue, JIQ (Lu, Xie, Kliot, Geller, Larus and Greenberg,
// "Join-Idle-Queue: a novel load balancing algorithm for dynamically
// scalable web services", Performance Evaluation 68(11), 2011): servers
// that become idle register with a dispatcher's I-queue; a job goes to a
// server taken from the I-queue if it is not empty, else to a uniformly
// random server.
//
// Choices the paper leaves (or makes for many dispatchers), decided here:
//   - One dispatcher. Every server starts registered if it starts idle,
//     joins the I-queue when a departure empties it, and leaves it when the
//     dispatcher sends it a job; so the I-queue is exactly the set of idle
//     bins (load 0), never a stale entry (with several dispatchers an idle
//     server registers with one of them, and the paper's analysis is of
//     that case; with one the large-system limit below follows).
//   - Which registered server takes the job: a uniformly random one (the
//     j-th idle bin in index order, j uniform; kernels/jiq.go). The
//     servers are exchangeable and service is memoryless, so any choice
//     among idle servers (the paper's queue order included) gives the same
//     law of the loads' profile; the uniform one makes the next bin's law a
//     function of the loads, so the process is symmetric and the histogram
//     engine runs it exactly.
//   - Without departures (a static run, --balls) the rule is the same: a
//     bin with no ball while there is one, else a uniform bin.
//   - Balls leave in the supermarket model only (--arrival-rate): the
//     deletions model's removals would have to register the bins they
//     empty with the direct loop's idle set, which they do not see; stale
//     loads are refused too (an I-queue is not a board).
//
// Prediction (--theory): in the large-system limit with one dispatcher an
// arriving job finds an idle server (a fraction 1 − λ of them is idle), so
// no job waits: every server holds 0 or 1 job, π_1 = λ, π_i = 0 for i ≥ 2,
// mean queue λ and mean response time 1 (the service time). Lu et al. show
// the waiting time vanishes as the dispatchers' share of idle servers
// grows; Stolyar ("Pull-based load distribution in large-scale
// heterogeneous service systems", Queueing Systems 80, 2015) proves the
// limit for exponential service and any λ < 1. At finite n a job waits
// only when all n servers are busy, with probability about Erlang's loss
// formula B(n, λn), which at n = 1000 is below 10^-4 even at λ = 0.9.
//
// Direct engine: kernels.JIQ (the idle set is built from the loads at the
// first step: the start's idle bins); the supermarket's event loop keeps
// its own (kernels/jiq.go). Histogram engine: kernels.LevelsJIQ, ball by
// ball on ranks. Stream per ball: one PCG32.Bounded draw (of the idle
// bins' count, else of n).

// JIQ is Join-Idle-Queue with one dispatcher.
type JIQ struct{}

var jiqEntry = &Entry{
	Name: "jiq", Order: 12,
	Summary: "join-idle-queue: an idle bin (load 0) while there is one, else a uniform bin; with --arrival-rate the supermarket's one-dispatcher JIQ",
	Source:  "Lu, Xie, Kliot, Geller, Larus, Greenberg 2011 (Perform. Eval.)",
	New:     func() Process { return &JIQ{} },
}

func init() { Register(jiqEntry) }

func (*JIQ) Entry() *Entry           { return jiqEntry }
func (*JIQ) Params() []*Param        { return nil }
func (p *JIQ) Check(su *Setup) error { return needBins(p, su) }

// jiqLoop is the direct engine's loop: its idle set is built from the
// loads at the first step (the start's idle bins).
type jiqLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	idle *kernels.IdleSet
}

func (l *jiqLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.idle == nil {
		l.idle = kernels.NewIdleSet(loads)
	}
	return c, kernels.JIQ(loads, l.r, c, maxLoad, l.idle)
}

func (*JIQ) Direct32(tr *Trial) Stepper[uint32] { return &jiqLoop[uint32]{r: tr.Choices} }
func (*JIQ) Direct64(tr *Trial) Stepper[uint64] { return &jiqLoop[uint64]{r: tr.Choices} }

type jiqLevels struct{ r *kernels.PCG32 }

func (l jiqLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	kernels.LevelsJIQ(lv, l.r, want)
	return want
}

func (*JIQ) Levels(tr *Trial) LevelStepper { return jiqLevels{tr.Choices} }

// HistogramSeconds: ball by ball on ranks, about 15 ns a ball.
func (*JIQ) HistogramSeconds(_, m, _ uint64) float64 { return float64(m) * 15e-9 }

// DirectFactor: about one-choice's cost a ball once the bins are busy (the
// idle set's descent while they are not).
func (*JIQ) DirectFactor() float64 { return 0.5 }

// Placement: an idle bin first (kernels.Placement.Idle).
func (*JIQ) Placement() (kernels.Placement, string) {
	return kernels.Placement{D: 1, Beta: 1, Idle: true}, ""
}

// Footprint: the idle set, a bit and 1/16 of a word a bin.
func (*JIQ) Footprint(f *units.Footprint, m Mem) {
	f.Add(m.BinsCulprit, m.BinsHint, m.Bins/8+m.Bins/16+16)
}
