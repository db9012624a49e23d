package process

import "github.com/balloc/balloc/core/result"

// Packing (Los, Sauerwald and Sylvester, "Balanced allocations: caching and
// packing, twinning and thinning", SODA 2022; the definition as the
// first author's pages state it, dimitrioslos.com/research/balls-and-bins/
// processes/packing.html): each step samples one bin i uniformly and, with
// W^t the balls placed before the step,
//
//	x_i ← ⌈W^t/n⌉ + 1  if x_i < W^t/n   (strictly below the average: ⌈W^t/n⌉ + 1 − x_i ≥ 2 balls)
//	x_i ← x_i + 1      if x_i ≥ W^t/n.
//
// The SODA abstract says "as many balls until the threshold is reached";
// the formula above, the first author's, packs the bin one ball past
// ⌈W^t/n⌉, so that it leaves the step overloaded (x_i ≥ W^t/n + 1 > the
// new average while a step adds fewer than n balls).
//
// balloc counts balls (--balls m places exactly m): the last step is cut to
// fit, and a checkpoint may fall inside a step. Results report the bins
// sampled (Result.Samples).
//
// It is Twinning's loop with another count for an underloaded bin
// (twinning.go holds the type and its engines): direct engine
// kernels.Packing, one PCG32.Bounded(n) per step; histogram engine step by
// step on ranks (kernels.LevelsTwinning), exact. No fluid limit is derived
// here.

var packingEntry = &Entry{
	Name: "packing", Order: 69,
	Summary: "one uniform bin a step: raised to ⌈W/n⌉ + 1 if its load is below the average W/n, else 1 ball",
	Source:  "Los, Sauerwald, Sylvester 2022 (SODA: Packing)",
	Reports: []*result.Kind{result.SamplesKind},
	New:     func() Process { return &Twinning{packing: true} },
}

func init() { Register(packingEntry) }
