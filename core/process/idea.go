package process

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// IDEA, Improved D-choice with Estimated Average: every bin keeps a load and
// an estimate of the global average; a ball draws rounds of d uniform bins,
// up to γ (--retries), until one has load ≤ its estimate, else takes the
// least estimated gap of its last round, and the estimates of that round's
// bins grow by w/d unless the hold rule of --variant refuses — "IDEA:
// Perfectly Balanced Allocation With Estimated Average Using Expected
// Constant Retries", §3 (rules), §6.1–6.2 (weights, vectors). core/engine/vector.go
// gives the rules in full and the choices balloc makes where the paper is
// ambiguous.
//
// Vector engine only (core/engine/vector.go, kernels.NewIdea and kernels.NewIdeaVec):
// weighted balls and balls of --dims D > 1 too.

// Idea is the IDEA process.
type Idea struct {
	D          int    // bins drawn per round
	Retries    int    // γ, the most rounds a ball makes
	Variant    string // numbered, sampling or oracle
	Held       string // a held increment is dropped or carried
	SampleSize int    // --variant sampling: bins per check (0 until Check resolves it to ⌈ln n⌉)
	SampleRule string // --variant sampling: reached (mean ≥ α) or rounded (mean ≥ α − 1/2)
	Dims       int    // dimensions of a ball; 1 is scalar balls
	Populated  int    // populated dimensions of a vector ball
	VectorGap  string // with --dims: a bin's estimated gap over the populated or all dimensions
}

var ideaEntry = &Entry{
	Name: "idea", Order: 140,
	Summary:  "rounds of d uniform bins, up to γ, until one has load ≤ its estimated average; the estimates of the last round's bins grow by 1/d",
	Source:   "IDEA: Perfectly Balanced Allocation With Estimated Average Using Expected Constant Retries, §3 (rules), §6.1–6.2 (weights, vectors)",
	Weighted: true,
	Reports:  []*result.Kind{result.RetriesKind, result.EstimatesKind},
	New:      func() Process { return &Idea{} },
}

func init() { Register(ideaEntry) }

var ideaVariants = map[string]kernels.IdeaVariant{
	"numbered": kernels.IdeaNumbered,
	"sampling": kernels.IdeaSampling,
	"oracle":   kernels.IdeaOracle,
}

// maxRetries bounds γ: the rounds histogram holds γ + 1 counters per trial.
const maxRetries = 1 << 20

func (*Idea) Entry() *Entry { return ideaEntry }

func (p *Idea) Params() []*Param {
	variant := func(get func(string) string) bool { return get("variant") == "sampling" }
	sampling := func() bool { return p.Variant == "sampling" }
	vector := func() bool { return p.Dims > 1 }
	return []*Param{
		DParam(&p.D, "bins drawn per round, 1 ≤ d ≤ bins"),
		Int("retries", "idea: γ, the most rounds of d draws a ball makes before it takes the least estimated gap of its last round, 1 ≤ γ ≤ 2^20", &p.Retries, 1, maxRetries).
			Def("8").Listed(),
		Choice("variant", "idea: the hold rule of the estimates: numbered (balls carry their number), sampling (a bin samples ⌈ln n⌉ estimates) or oracle (every bin knows the true average)",
			&p.Variant, "numbered", "sampling", "oracle").Def("numbered").Listed(),
		Choice("held", "idea: an increment the hold rule refuses is dropped, or carried (banked, and added when the hold lifts)",
			&p.Held, "drop", "carry").Def("drop").Listed().
			ShownWhen(func() bool { return p.Variant != "oracle" }).
			AppliesWhen(func(get func(string) string) bool { return get("variant") != "oracle" },
				"--held applies to idea --variant numbered or sampling only"),
		Int("sample-size", "idea --variant sampling: bins sampled per check, 1 ≤ K ≤ 2^20 (0: ⌈ln n⌉)", &p.SampleSize, 0, 1<<20).
			Def("0").Listed().
			ShownWhen(sampling).
			AppliesWhen(variant, "--sample-size applies to idea --variant sampling only"),
		Choice("sample-rule", "idea --variant sampling: an estimate passes α when the sampled mean is ≥ α (reached) or ≥ α − 1/2 (rounded)",
			&p.SampleRule, "reached", "rounded").Def("reached").Listed().
			ShownWhen(sampling).
			AppliesWhen(variant, "--sample-rule applies to idea --variant sampling only"),
		DimsParam(&p.Dims),
		PopulatedParam(&p.Populated, vector),
		Choice("vector-gap", "idea with --dims: a bin's estimated gap is its largest L − Â over the ball's populated dimensions or over all",
			&p.VectorGap, "populated", "all").Def("populated").Listed().
			ShownWhen(vector).
			AppliesWhen(func(get func(string) string) bool {
				d, err := units.ParseCount(get("dims"))
				return err != nil || d > 1 // a bad --dims is Check's to report
			}, "--vector-gap applies to balls of --dims 2 or more"),
	}
}

// Check checks the parameters that depend on each other or on n and m, and
// resolves --sample-size.
func (p *Idea) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if p.Populated > p.Dims {
		return fmt.Errorf("--populated %d exceeds --dims %d: want 1 ≤ f ≤ dims", p.Populated, p.Dims)
	}
	for _, name := range []string{"sample-size", "sample-rule"} {
		if su.Given[name] && p.Variant != "sampling" {
			return fmt.Errorf("--%s applies to idea --variant sampling only", name)
		}
	}
	if su.Given["held"] && p.Variant == "oracle" {
		return fmt.Errorf("--held applies to idea --variant numbered or sampling only")
	}
	if su.Given["vector-gap"] && p.Dims == 1 {
		return fmt.Errorf("--vector-gap applies to balls of --dims 2 or more")
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", p.D, su.Bins)
	}
	if p.Variant == "sampling" && p.SampleSize == 0 {
		p.SampleSize = max(1, int(math.Ceil(math.Log(float64(su.Bins)))))
	}
	// Unit balls keep loads and estimates (in units of 1/d) as int64, and
	// the oracle compares n·L with the balls thrown.
	if su.Weights.Kind == WeightsUnit {
		limit := uint64(1) << 62
		if su.Balls > limit/uint64(p.D) || su.Balls > limit/su.Bins {
			return fmt.Errorf("--balls %d: idea's exact integer estimates need d·m and n·m below 2^62", su.Balls)
		}
	}
	return nil
}

func (p *Idea) Dimensions() int { return p.Dims }

// Memory: a load and an estimate per bin and dimension, the measuring copy,
// the banks of --held carry, the fast loops' flags (a byte per bin, 8 for
// D > 8, at least 2^16 of them) and the rounds histogram.
func (p *Idea) Footprint(f *units.Footprint, m Mem) {
	D := uint64(max(1, p.Dims))
	flag, bank := uint64(1), uint64(0)
	if D > 8 {
		flag = 8
	}
	if p.Held == "carry" {
		bank = 8
	}
	b := units.Add(units.Add(units.Mul(units.Mul(m.Bins, D), 16+8+bank), units.Mul(max(m.Bins, 1<<16), flag)),
		units.Mul(uint64(p.Retries+1), 8))
	if D > 1 {
		f.Add(fmt.Sprintf("--dims %d", p.Dims), "lower --dims or --bins", b)
		return
	}
	f.Add(m.BinsCulprit, m.BinsHint, b)
}

// Vector is the kernels' view of IDEA: its rule, and the shape of its balls.
func (p *Idea) Vector(bins uint64) (VectorRun, bool) {
	return VectorRun{
		Idea: true,
		Config: kernels.IdeaConfig{N: uint32(bins), D: p.D, Gamma: p.Retries, Variant: ideaVariants[p.Variant],
			K: p.SampleSize, Rounded: p.SampleRule == "rounded", Carry: p.Held == "carry"},
		Shape: kernels.VecShape{Dims: p.Dims, F: p.Populated, AllDims: p.VectorGap == "all"},
	}, true
}
