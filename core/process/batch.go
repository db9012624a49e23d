package process

import (
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// The b-Batch setting (Berenbrink, Czumaj, Englert, Friedetzky, Nagel,
// "Multiple-choice balanced allocation in (almost) parallel", RANDOM 2012;
// Los, Sauerwald, "Balanced allocations in batches: simplified and
// generalized", SPAA 2022), as a parameter --batch b of the processes whose
// decision reads loads (bbatch.go is the b-Batch process itself): every
// ball of a batch decides on the loads at the batch's start, and on what
// the rule reads beside them as it was then, W0 + t₀ the balls placed at
// the batch's start (--initial's W0 counted, initial.go). What each process
// reads in batches is said in its file (d-choice, one-plus-beta, quantile,
// two-thinning, k-thinning, threshold and adaptive, twinning and packing,
// kd-choice).
//
// A step of several balls is decided once, in the batch of its first ball;
// batches count balls, so a step whose balls cross a batch end places the
// rest first in the next batch, before any new sample (kernels/batch_steps.go).
// --batch 1 is the process itself, its own loops. Direct engine only;
// max_gap covers the batch ends, as for the other batched processes. This
// file holds what every batched process shares: the frozen loads, their
// memory, and the reason for staying off the histogram engine.

// batchMemory adds the frozen loads of batches of b.
func batchMemory(b uint64, f *units.Footprint, m Mem) {
	if b > 1 {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, b, int(m.LoadBytes), m.Weighted))
	}
}

// batchWhy keeps a batched process off the histogram engine.
func batchWhy(name string, b uint64) string {
	if b > 1 {
		return name + " in batches (--batch) runs on the direct engine"
	}
	return ""
}

// batchStart is what every batched stepper shares: the frozen loads.
type batchStart[L kernels.Load] struct{ batch *kernels.Batch[L] }

// Start freezes --initial's loads for the first batch.
func (l *batchStart[L]) Start(loads []L) { l.batch.Start(loads) }

func (l *batchStart[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

func newBatchStart[L kernels.Load](tr *Trial, b uint64) batchStart[L] {
	return batchStart[L]{kernels.NewBatch[L](int(tr.Bins), b, false)}
}
