package process

import (
	"fmt"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// Leaky bins (Berenbrink, Friedetzky, Kling, Mallmann-Trenn, Nagel and
// Wastell, "Self-stabilizing balls & bins in batches: the power of leaky
// bins", PODC 2016; Algorithmica 80, 2018): an infinite process in rounds.
// Each round a batch of new balls arrives, an expected λn of them, and each
// is placed by Greedy[d] — the least loaded of d uniform bins — where the
// balls of a round are thrown in parallel: every one compares the loads at
// the round's start, and none sees the others of its batch. Then every
// non-empty bin deletes one ball. The paper shows the system load is
// time-invariant for any λ < 1 (stationary from any start: self-
// stabilizing), with maximum load O(1/(1−λ) · log(n/(1−λ))) for d = 1 and
// O(log(n/(1−λ))) for d = 2, w.h.p. at any round.
//
// Choices the abstract leaves, decided here:
//   - The batch: n generators each emit a ball with probability λ, so a
//     round brings Binomial(n, λ) balls (the paper's "expected number of λn
//     new balls"); 0 < λ < 1.
//   - Greedy[d]: d samples uniform with replacement, the first of the least
//     loaded by the round-start loads (a uniform one in law); d = 1 is
//     one-choice. d ≤ n.
//   - The order in a round: the batch is placed, then every non-empty bin
//     deletes one ball (a ball can leave in the round it arrived). The state
//     after a round is after its deletions.
//   - The start: --balls m balls as rbb's (the default --initial uniform
//     spreads them evenly, spike puts them in bin 0, or uniform:L, spike:L,
//     file:PATH holding m balls); --balls 0 starts empty. A spike shows the
//     self-stabilization: the process forgets its start.
//   - What is reported, as rbb's: after each round past the burn-in (the
//     first ⌊R/2⌋ of the R = --rounds rounds), the maximum load, the empty
//     bins and the balls present, averaged; the arrivals and deletions per
//     bin and round (at stationarity both λ in expectation). --checkpoints K
//     snapshots the loads after rounds ⌊k·R/K⌋; the gap is max − present/n.
//
// Direct engine only (core/engine/leaky.go): a round copies the loads
// (O(n)), places its batch by kernels.LeakyPlace on the copy's loads, and
// releases by kernels.RBBRelease. Stream per round: PCG32.Binomial(n, λ)
// for the batch, then d PCG32.Bounded(n) a ball.

// Leaky is leaky bins.
type Leaky struct {
	Rounds uint64
	Lambda float64
	D      int
}

var leakyEntry = &Entry{
	Name: "leaky", Order: 216,
	Summary: "leaky bins: each of --rounds rounds Binomial(n, λ) balls arrive, placed by greedy[d] on the round's starting loads, then every non-empty bin deletes one ball",
	Source:  "Berenbrink, Friedetzky, Kling, Mallmann-Trenn, Nagel, Wastell 2016 (PODC)",
	Reports: []*result.Kind{result.LeakyKind},
	New:     func() Process { return &Leaky{D: 2} },
}

func init() { Register(leakyEntry) }

func (*Leaky) Entry() *Entry { return leakyEntry }

func (p *Leaky) Params() []*Param {
	return []*Param{
		Count("rounds", "rbb, leaky: rounds R ≥ 1", &p.Rounds, 1, "want at least 1 round").
			Listed().Need("the number of rounds R ≥ 1"),
		Real("lambda", "leaky: arrival rate λ, 0 < λ < 1: each round Binomial(n, λ) balls arrive", &p.Lambda,
			func(x float64) bool { return x > 0 && x < 1 }, "0 < λ < 1").
			Listed().Need("the arrival rate 0 < λ < 1"),
		DParam(&p.D, ""),
	}
}

func (p *Leaky) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d: want at most --bins (%d)", p.D, su.Bins)
	}
	return nil
}

// DefaultInitial: rbb's uniform start of the --balls balls (core.Conserving).
func (*Leaky) DefaultInitial() string { return "uniform" }

// Steps is R: --checkpoints count rounds (core.Conserving).
func (p *Leaky) Steps() uint64 { return p.Rounds }

// Leak is the batch's rate and the samples a ball (Leaking).
func (p *Leaky) Leak() (lambda float64, d int) { return p.Lambda, p.D }

// Footprint: the round-start copy of the loads.
func (p *Leaky) Footprint(f *units.Footprint, m Mem) {
	f.Add(m.BinsCulprit, m.BinsHint, m.Bins*m.LoadBytes)
}
