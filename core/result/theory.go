package result

import "github.com/balloc/balloc/core/theory"

// Theory sets a prediction beside a simulation, level by level.
type Theory struct {
	Model  string        `json:"model"`
	Levels []TheoryLevel `json:"levels"`
	// FirstMomentMax is the largest i with n·s_i ≥ 1: where the expected
	// number of bins at load ≥ i, by the fluid limit, drops below one.
	FirstMomentMax int `json:"first_moment_max_load"`
}

// TheoryLevel is the fraction of bins with load ≥ Load, simulated (mean
// over trials) and predicted.
type TheoryLevel struct {
	Load      float64 `json:"load"`
	Simulated float64 `json:"simulated"`
	Fluid     float64 `json:"fluid"`
}

// maxTheoryRows bounds the rows of a comparison; wider spreads are strided.
const maxTheoryRows = 32

// CompareTheory lines up the profile with the mean over hists of the
// fraction of bins with load ≥ i, on the levels where either is neither 0
// nor 1 (strided to at most maxTheoryRows rows, keeping both ends).
func CompareTheory(p theory.Profile, bins uint64, hists []Histogram) *Theory {
	n := float64(bins)
	th := &Theory{Model: "fluid limit (mean-field ODE)", FirstMomentMax: 0}
	if p.Model != "" {
		th.Model = p.Model
	}
	for i := p.Top(); i >= 0; i-- {
		if n*p.At(i) >= 1 {
			th.FirstMomentMax = i
			break
		}
	}
	// From the first level where either the prediction or a trial has
	// fewer than all bins (a trial's minimum load m has all bins ≥ m, so
	// its first such level is m+1) to the last where a trial has a bin or
	// the prediction expects 0.01 bins.
	lo, hi := p.Base, th.FirstMomentMax
	for p.At(lo) >= 1-1e-6 {
		lo++
	}
	for _, h := range hists {
		if len(h) > 0 {
			lo = min(lo, int(h[0].Load)+1)
			hi = max(hi, int(h[len(h)-1].Load))
		}
	}
	for hi < p.Top() && n*p.At(hi+1) >= 0.01 {
		hi++
	}
	stride := max(1, (hi-lo+maxTheoryRows-1)/maxTheoryRows)
	for i := lo; i <= hi; i += stride {
		if i > lo && i+stride > hi {
			i = hi
		}
		sim := 0.0
		for _, h := range hists {
			sim += FractionAtLeast(h, float64(i), bins)
		}
		if len(hists) > 0 {
			sim /= float64(len(hists))
		}
		th.Levels = append(th.Levels, TheoryLevel{Load: float64(i), Simulated: sim, Fluid: p.At(i)})
	}
	return th
}

// FractionAtLeast is the fraction of the n bins whose load is ≥ x.
func FractionAtLeast(h Histogram, x float64, bins uint64) float64 {
	c := uint64(0)
	for _, l := range h {
		if l.Load >= x {
			c += l.Count
		}
	}
	return float64(c) / float64(bins)
}
