package process

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
)

// Repeated balls-into-bins, RBB (Becchetti, Clementi, Natale, Pasquale and
// Posta, "Self-stabilizing repeated balls-into-bins", SPAA 2015; Los and
// Sauerwald, "Tight bounds for repeated balls-into-bins", STACS 2023, whose
// experiments, Section 6, are the authors' Dim131/RBB): m balls in n bins.
// Each round, every non-empty bin releases one ball, all at once; then the k
// released balls (k = the bins that were non-empty) are re-allocated by
// One-Choice. The authors' nextRound is exactly that: phase 1 decrements
// every non-empty bin, phase 2 throws the k balls one at a time, each into
// a uniform bin.
//
// Choices the paper leaves, decided here:
//   - --placement d-choice --d D re-allocates the released balls by
//     D-Choice instead (the "any placement process"; the paper has
//     One-Choice only). They are placed one after another, each seeing the
//     loads left by the release and by the balls placed before it in the
//     round — phase 2 of the authors' loop with its uniform bin replaced by
//     the least loaded of D (ties to the first sample, which is a uniform
//     tie in law, kernels/dchoice.go). For One-Choice the order is immaterial.
//   - The start (--initial, initial.go) is the m = --balls balls: by default
//     the authors' uniform vector (generate_uniform_vector: ⌊m/n⌋ a bin, one
//     more in the first m mod n), or spike (all m in bin 0, the adversarial
//     start of the paper's lower bounds), uniform:L, spike:L or a file
//     holding m balls.
//   - What is reported, as the authors' run_experiments_for_n_and_m: after
//     every round r = 1 … R, the maximum load and the number of empty bins;
//     their means over the R rounds (the start, round 0, not among them),
//     and the state after round R. --checkpoints K snapshots the loads after
//     rounds ⌊k·R/K⌋ (K = R: every round); the gap is max − m/n.
//
// Direct engine: kernels.RBBRelease, then the placement's own loop
// (kernels.OneChoice, TwoChoice, DChoice) for the k balls; O(n + k) a round.
// Histogram engine (symmetric: a round depends on loads only): the release
// is Levels.Release, exact on level counts (every level moves down by one,
// load 1 joins load 0); One-Choice's k balls are one occupancy throw
// (hist.ThrowLevels), D-Choice's its level batches (hist.Advance). The two
// engines agree in distribution, not draw for draw. Stream: the trial's
// choice stream, the placement's draws only (the release draws nothing).

// RBB is repeated balls-into-bins.
type RBB struct {
	Rounds    uint64
	Placement string // one-choice or d-choice
	D         int    // --placement d-choice: samples per ball

	directFactor float64 // Check: the direct engine's cost as a factor of m two-choice balls
}

var rbbEntry = &Entry{
	Name: "rbb", Order: 215,
	Summary: "repeated balls-into-bins: m = --balls balls; each of --rounds rounds every non-empty bin releases one ball, re-allocated by one-choice (or --placement d-choice)",
	Source:  "Becchetti et al. 2015; Los, Sauerwald 2023 (STACS)",
	Reports: []*result.Kind{result.RoundsKind},
	New:     func() Process { return &RBB{Placement: "one-choice", D: 2} },
}

func init() { Register(rbbEntry) }

func (*RBB) Entry() *Entry { return rbbEntry }

func (p *RBB) Params() []*Param {
	notOne := func(get func(string) string) bool { return get("placement") == "d-choice" }
	return []*Param{
		Count("rounds", "rbb: rounds R ≥ 1; each round every non-empty bin releases one ball and the released balls are re-allocated", &p.Rounds, 1, "want at least 1 round").
			Listed().Need("the number of rounds R ≥ 1"),
		Choice("placement", "rbb: how the released balls are re-allocated: one-choice (the paper's) or d-choice (--d samples, one ball after another)", &p.Placement, "one-choice", "d-choice").
			Def("one-choice").Listed().ShownWhen(func() bool { return p.Placement != "one-choice" }),
		DParam(&p.D, "").AppliesWhen(notOne, "--d applies to rbb with --placement d-choice").
			ShownWhen(func() bool { return p.Placement == "d-choice" }),
	}
}

func (p *RBB) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if p.Placement == "d-choice" && uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d: want at most --bins (%d)", p.D, su.Bins)
	}
	// auto compares m balls of the two-choice loop (about 3 ns each at
	// n = 10^4) with R rounds of RBBDirectNs a bin.
	p.directFactor = float64(p.Rounds) * float64(su.Bins) * RBBDirectNs / (3.06 * float64(max(su.Balls, 1)))
	return nil
}

// DefaultInitial: the authors' uniform start (core.Conserving).
func (*RBB) DefaultInitial() string { return "uniform" }

// Steps is R: --checkpoints count rounds (core.Conserving).
func (p *RBB) Steps() uint64 { return p.Rounds }

// placementD is the samples per re-allocated ball.
func (p *RBB) placementD() int {
	if p.Placement == "d-choice" {
		return p.D
	}
	return 1
}

// Direct32 and Direct64 are the placement's loop, which the engine
// (core/engine/rbb.go) runs on the k released balls of each round.
func (p *RBB) Direct32(tr *Trial) Stepper[uint32] {
	return dChoiceDirect[uint32](p.placementD(), 1, tr)
}
func (p *RBB) Direct64(tr *Trial) Stepper[uint64] {
	return dChoiceDirect[uint64](p.placementD(), 1, tr)
}

// Levels is the placement on level counts: one occupancy throw for
// One-Choice, level batches for D-Choice.
func (p *RBB) Levels(tr *Trial) LevelStepper {
	return (&DChoice{D: p.placementD(), Batch: 1}).Levels(tr)
}

// HistogramSeconds: a round is a release, O(levels), and one occupancy
// throw of about n(1 − e) balls for One-Choice, about 100–130 µs whatever n
// (bench/rbb_test.go: 7.8k rounds/s at n = 10^4, m/n = 10; 10k at n = 10^6,
// m/n = 1); D-Choice's level batches of about 4√n balls, ~4 µs each.
func (p *RBB) HistogramSeconds(n, _, _ uint64) float64 {
	if p.placementD() == 1 {
		return float64(p.Rounds) * 100e-6
	}
	return float64(p.Rounds) * (20e-6 + 1e-6*math.Sqrt(float64(n)))
}

// RBBDirectNs is the direct engine's ns a bin and round (a release pass and
// about n(1 − e) one-choice placements): bench/rbb_test.go, 16–27k rounds/s
// at n = 10^4, m/n = 10 on the shared 2-core machine, 3.7–6 ns a bin.
const RBBDirectNs = 4

// DirectFactor: R rounds of RBBDirectNs a bin, against m two-choice balls.
func (p *RBB) DirectFactor() float64 { return p.directFactor }
