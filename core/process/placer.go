package process

import (
	"github.com/balloc/balloc/kernels"
)

// The Placer capability (dynamic.go) of the processes beyond the least of
// D samples: each reads the current loads only, so the models where balls
// leave run it on the loads present (kernels/placer.go has the loops).

// Placement: Quantile(δ) on the loads present — the first bin passes the
// ball on when it is among the ⌈δn⌉ heaviest of the n bins now, ties in a
// uniformly random order (the static rule, read on the current loads);
// mixed-quantile takes that step with probability η. δ = 0 (or η = 0) is
// one-choice's placement. The direct engine's deletions tell its counts
// per load of every ball removed (quantileLoop.Left).
func (p *Quantile) Placement() (kernels.Placement, string) {
	switch {
	case p.batched():
		return kernels.Placement{}, "--batch: batches read frozen loads, which departures would change under them"
	case p.delayed():
		return kernels.Placement{}, "--tau: delayed rank tests have no dynamic reading here (their record of past loads would need the departures)"
	case p.Opt.on():
		return kernels.Placement{}, "--distinct and --sampling are static options of quantile; balls leave with uniform samples"
	case p.k == 0:
		return kernels.Placement{D: 1, Beta: 1}, ""
	}
	eta := 1.0
	if p.mixed {
		eta = p.Eta
	}
	return kernels.Placement{D: 2, Beta: eta, Heavy: p.k}, ""
}

// Left: a ball left a bin of load l (the deletions model, direct engine).
func (l quantileLoop[L]) Left(v L) { l.q.Down(uint64(v)) }

// staticWhy is a process's reason to stay off the histogram engine where it
// has one: the options that keep it there (batches' frozen loads, delays'
// record of past loads) are the ones with no dynamic reading.
// settingWhy: the batch and delay settings have no dynamic reading — a
// batch's frozen loads and a delay's record of past loads would need the
// departures.
func settingWhy(batch uint64, d *Delayed) string {
	switch {
	case batch > 1:
		return "--batch: batches read frozen loads, which departures would change under them"
	case d.on():
		return "--tau: the delayed reads count balls placed, not events; for stale loads when balls leave use --update-period, --update-delay or --update-individual"
	}
	return ""
}

func staticWhy(p any) string {
	if h, ok := p.(HistogramWhy); ok {
		return h.HistogramWhy()
	}
	return ""
}

// Placement: Two-Thinning with t read as the balls present — the first bin
// is kept when its load is below (balls present)/n + θ, the current
// average plus θ (kernels/placer.go), which is the static rule while no
// ball has left. The deletions model passes the balls present as t to the
// static steppers, so they run unchanged.
func (p *TwoThinning) Placement() (kernels.Placement, string) {
	if p.Optimal {
		return kernels.Placement{}, optimalWhy("--threshold", "balls that leave are not built with it")
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: []float64{p.Threshold}}, ""
}

// Placement: K-Thinning with thresholds, t read as the balls present, as
// Two-Thinning's. The quantile thresholds (positions of the sorted loads)
// are not built here.
func (p *KThinning) Placement() (kernels.Placement, string) {
	if p.Thresholds.Optimal {
		return kernels.Placement{}, optimalWhy("--thresholds", "balls that leave are not built with it")
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	if why := staticWhy(p); why != "" {
		return kernels.Placement{}, why
	}
	if p.Thresholds.Quantile {
		return kernels.Placement{}, "--thresholds quantile has no dynamic reading yet (give θ1,…,θ(K−1))"
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: append([]float64(nil), p.Thresholds.Theta...)}, ""
}

// Placement: Adaptive with ball i read as present + 1 (the current
// average): uniform samples until one's load is below (present + 1)/n + 1,
// the static rule while no ball has left. Threshold's limit m/n + 1 reads
// the run's total balls, which has no meaning when balls leave: refused
// (adaptive is its reading on the current average).
func (p *Retry) Placement() (kernels.Placement, string) {
	if !p.adaptive {
		return kernels.Placement{}, "threshold's limit m/n + 1 reads the run's total balls, which has no meaning when balls leave; adaptive reads the current average (i/n + 1)"
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	if why := staticWhy(p); why != "" {
		return kernels.Placement{}, why
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: []float64{1}, Retry: true}, ""
}

// DeletionsWhy: memory in the deletions model, on the direct engine — the
// cache holds bins, and a ball compares the current loads of its samples
// and of the cached bins, lowered by the deletions since; the cache rule
// is the static one. Removals are uniform over balls or non-empty bins,
// so the law stays exchangeable from the empty start and the loop's
// position ties keep the law of random ties (kernels/memory.go's
// argument; the exact-law test with random ties checks it). The
// supermarket (a cache beside the event loop) and the level counts (a
// departure tested against the cached bins) are not built.
func (p *Caching) DeletionsWhy() string {
	switch {
	case p.Batch > 1:
		return "--batch: batches read frozen loads, which departures would change under them"
	case p.Delayed.on():
		return "--tau: the delayed reads count balls placed, not events"
	}
	return ""
}
