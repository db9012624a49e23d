package haar

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// LevelDifference compares, at one depth of T, the stationary sibling
// difference |D| = |L̄(S_l) − L̄(S_r)| that the drift balance predicts
// (Info.DifferenceScale) with the one a simulation of the plan shows.
type LevelDifference struct {
	Depth, Nodes int
	// Predicted is the mean over the level's nodes of |E|/(n·λ_i/C).
	Predicted float64
	// Measured is the mean |D| over the level's nodes and the samples;
	// HalfWidth the half-width of its 95% interval, from batch means.
	Measured, HalfWidth float64
	// Relax is the slowest node's relaxation time in balls, E|D|/μ with
	// μ = (w/2|E|)(1/k_l + 1/k_r) the drift of D per ball: samples closer
	// than that are correlated, and a burn-in shorter than a few of it is
	// not stationary.
	Relax float64
	// Step is the coarsest lattice step of D at the level, 1/min(k_l, k_r):
	// where Predicted is below about two steps the per-ball bias is not
	// small against the chance a ball lands in the set, and the walk's
	// continuous prediction overstates |D| by up to half a step (the
	// prediction stays exact for vertex pairs, Step 1).
	Step float64
}

// measureBatches is the number of batch means the interval is drawn from;
// measureT is Student's t at 97.5% for measureBatches − 1 degrees of freedom.
const (
	measureBatches = 20
	measureT       = 2.093
)

// MeasureDifferences throws balls balls by the plan from empty loads, one
// stream from seed: the first half as burn-in, then samples snapshots
// evenly spread over the second half (at least measureBatches; rounded down
// to a multiple of it). At every snapshot it reads every internal node's D;
// it returns, per depth of T, the mean |D| with a 95% interval from the
// means of measureBatches consecutive batches of snapshots (an honest
// interval only if a batch spans several Relax), beside the prediction.
func (p *Plan) MeasureDifferences(balls uint64, samples int, seed uint64) []LevelDifference {
	samples = max(samples, measureBatches) / measureBatches * measureBatches
	depth := 0
	for _, nd := range p.Nodes {
		depth = max(depth, nd.Depth+1)
	}
	out := make([]LevelDifference, depth)
	for d := range out {
		out[d].Depth = d
	}
	e := float64(p.Info.E)
	for _, nd := range p.Nodes {
		l := &out[nd.Depth]
		w := nd.Lambda / p.C
		pred := p.Info.DifferenceScale(w)
		kl, kr := float64(p.Tables.Size[2*nd.Heap]), float64(p.Tables.Size[2*nd.Heap+1])
		l.Nodes++
		l.Predicted += pred
		l.Relax = max(l.Relax, pred/((w/(2*e))*(1/kl+1/kr)))
		l.Step = max(l.Step, 1/min(kl, kr))
	}
	for d := range out {
		out[d].Predicted /= float64(out[d].Nodes)
	}

	loads := make([]uint32, p.N)
	r := kernels.TrialStream(seed, 0, kernels.LaneChoices)
	st := kernels.NewHaarState(&p.Tables, loads, 0)
	burn := balls / 2
	kernels.Haar(loads, &r, burn, &p.Tables, &st, 0)
	every := (balls - burn) / uint64(samples)
	sums := make([]float64, len(p.Tables.Size))
	batch := make([][]float64, depth) // per level, the batch sums of |D|
	for d := range batch {
		batch[d] = make([]float64, measureBatches)
	}
	per := samples / measureBatches
	for s := range samples {
		kernels.Haar(loads, &r, every, &p.Tables, &st, 0)
		clear(sums)
		for v, h := range p.Tables.Leaf {
			sums[h] = float64(loads[v])
		}
		for h := len(sums) - 1; h >= 2; h-- {
			sums[h>>1] += sums[h]
		}
		for _, nd := range p.Nodes {
			h := 2 * nd.Heap
			dd := sums[h]/float64(p.Tables.Size[h]) - sums[h+1]/float64(p.Tables.Size[h+1])
			batch[nd.Depth][s/per] += math.Abs(dd)
		}
	}
	for d := range out {
		l := &out[d]
		var s, s2 float64
		for _, b := range batch[d] {
			m := b / float64(per*l.Nodes)
			s += m
			s2 += m * m
		}
		l.Measured = s / measureBatches
		v := max(0, (s2-s*l.Measured)/(measureBatches-1))
		l.HalfWidth = measureT * math.Sqrt(v/measureBatches)
	}
	return out
}
