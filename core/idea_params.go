package core

import (
	"fmt"
	"math"
	"strconv"

	"github.com/balloc/balloc/kernels"
)

// The parameters of idea and of multi-dimensional balls (idea, d-choice).

var ideaVariants = map[string]kernels.IdeaVariant{
	"numbered": kernels.IdeaNumbered,
	"sampling": kernels.IdeaSampling,
	"oracle":   kernels.IdeaOracle,
}

// maxRetries bounds γ: the rounds histogram holds γ + 1 counters per trial.
const maxRetries = 1 << 20

// intParam returns a ParamDef setter for an integer in [lo, hi].
func intParam(flag string, lo, hi int, dst func(*Params) *int) func(*Params, string) error {
	return func(p *Params, v string) error {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < int64(lo) || x > int64(hi) {
			return fmt.Errorf("--%s %q: want an integer in [%d, %d]", flag, v, lo, hi)
		}
		*dst(p) = int(x)
		return nil
	}
}

var ideaDefs = []ParamDef{
	{
		Name: "retries", Usage: "idea: γ, the most rounds of d draws a ball makes before it takes the least estimated gap of its last round, 1 ≤ γ ≤ 2^20", Default: "8", List: true,
		set:   intParam("retries", 1, maxRetries, func(p *Params) *int { return &p.Retries }),
		value: func(p *Params) any { return p.Retries },
	},
	{
		Name: "variant", Usage: "idea: the hold rule of the estimates: numbered (balls carry their number), sampling (a bin samples ⌈ln n⌉ estimates) or oracle (every bin knows the true average)", Default: "numbered", List: true,
		set:   choice("variant", func(p *Params) *string { return &p.Variant }, "numbered", "sampling", "oracle"),
		value: func(p *Params) any { return p.Variant },
	},
	{
		Name: "sample-size", Usage: "idea --variant sampling: bins sampled per check, 1 ≤ K ≤ 2^20 (0: ⌈ln n⌉)", Default: "0", List: true,
		set:   intParam("sample-size", 0, 1<<20, func(p *Params) *int { return &p.SampleSize }),
		value: func(p *Params) any { return p.SampleSize },
	},
	{
		Name: "sample-rule", Usage: "idea --variant sampling: an estimate passes α when the sampled mean is ≥ α (reached) or ≥ α − 1/2 (rounded)", Default: "reached", List: true,
		set:   choice("sample-rule", func(p *Params) *string { return &p.SampleRule }, "reached", "rounded"),
		value: func(p *Params) any { return p.SampleRule },
	},
	{
		Name: "held", Usage: "idea: an increment the hold rule refuses is dropped, or carried (banked, and added when the hold lifts)", Default: "drop", List: true,
		set:   choice("held", func(p *Params) *string { return &p.Held }, "drop", "carry"),
		value: func(p *Params) any { return p.Held },
	},
	{
		Name: "dims", Usage: "idea, d-choice: dimensions D of each ball, 1 ≤ D ≤ 64 (1: scalar balls)", Default: "1", List: true,
		set:   intParam("dims", 1, kernels.MaxDims, func(p *Params) *int { return &p.Dims }),
		value: func(p *Params) any { return p.Dims },
	},
	{
		Name: "populated", Usage: "idea, d-choice with --dims: populated dimensions f of each ball, chosen uniformly, 1 ≤ f ≤ dims", Default: "1", List: true,
		set:   intParam("populated", 1, kernels.MaxDims, func(p *Params) *int { return &p.Populated }),
		value: func(p *Params) any { return p.Populated },
	},
	{
		Name: "vector-gap", Usage: "idea with --dims: a bin's estimated gap is its largest L − Â over the ball's populated dimensions or over all", Default: "populated", List: true,
		set:   choice("vector-gap", func(p *Params) *string { return &p.VectorGap }, "populated", "all"),
		value: func(p *Params) any { return p.VectorGap },
	},
}

func init() {
	paramDefs = append(paramDefs, ideaDefs...)
}

// checkIdea checks the parameters of idea and of multi-dimensional balls
// that depend on each other or on n and m, and resolves --sample-size. set
// holds the parameters the user gave.
func (s *Spec) checkIdea(set map[string]string) error {
	p := &s.Params
	if s.Process.Takes("dims") {
		if p.Populated > p.Dims {
			return fmt.Errorf("--populated %d exceeds --dims %d: want 1 ≤ f ≤ dims", p.Populated, p.Dims)
		}
	}
	if s.Process.Kind != KindIdea {
		return nil
	}
	for _, name := range []string{"sample-size", "sample-rule"} {
		if _, ok := set[name]; ok && p.Variant != "sampling" {
			return fmt.Errorf("--%s applies to idea --variant sampling only", name)
		}
	}
	if _, ok := set["held"]; ok && p.Variant == "oracle" {
		return fmt.Errorf("--held applies to idea --variant numbered or sampling only")
	}
	if _, ok := set["vector-gap"]; ok && p.Dims == 1 {
		return fmt.Errorf("--vector-gap applies to balls of --dims 2 or more")
	}
	if uint64(p.D) > s.Bins {
		return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", p.D, s.Bins)
	}
	if p.Variant == "sampling" && p.SampleSize == 0 {
		p.SampleSize = max(1, int(math.Ceil(math.Log(float64(s.Bins)))))
	}
	// Unit balls keep loads and estimates (in units of 1/d) as int64, and
	// the oracle compares n·L with the balls thrown.
	if p.Weights.Kind == WeightsUnit {
		limit := uint64(1) << 62
		if s.Balls > limit/uint64(p.D) || s.Balls > limit/s.Bins {
			return fmt.Errorf("--balls %d: idea's exact integer estimates need d·m and n·m below 2^62", s.Balls)
		}
	}
	return nil
}

// ideaMemory is what an idea or multi-dimensional trial holds beyond the
// engine's load array: a load and an estimate per bin and dimension, the
// measuring copy, the banks of --held carry, the fast loops' flags (a byte
// per bin, 8 for D > 8, at least 2^16 of them) and the rounds histogram.
func (s *Spec) ideaMemory() uint64 {
	D := uint64(max(1, s.Params.Dims))
	switch {
	case s.Process.Kind == KindIdea:
		flag, bank := uint64(1), uint64(0)
		if D > 8 {
			flag = 8
		}
		if s.Params.Held == "carry" {
			bank = 8
		}
		return s.Bins*D*(16+8+bank) + max(s.Bins, 1<<16)*flag + uint64(s.Params.Retries+1)*8
	case D > 1:
		return s.Bins * (D*8 + 8 + 8)
	}
	return 0
}

// ideaConfig is the kernels' view of an idea spec.
func (s *Spec) ideaConfig() kernels.IdeaConfig {
	p := &s.Params
	return kernels.IdeaConfig{N: uint32(s.Bins), D: p.D, Gamma: p.Retries, Variant: ideaVariants[p.Variant],
		K: p.SampleSize, Rounded: p.SampleRule == "rounded", Carry: p.Held == "carry"}
}

// vecShape is the kernels' view of multi-dimensional balls.
func (s *Spec) vecShape() kernels.VecShape {
	p := &s.Params
	return kernels.VecShape{Dims: p.Dims, F: p.Populated, AllDims: p.VectorGap == "all"}
}
