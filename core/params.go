package core

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/kernels"
)

// Params holds every process parameter; a process reads the ones its
// catalogue entry names. The zero value of a field means "not set".
type Params struct {
	D         int     // d-choice, always-go-left: samples per ball / groups
	Beta      float64 // one-plus-beta: probability of a two-choice step
	Threshold float64 // two-thinning: θ, relative to the current average
	Weights   Weights // ball weights where the process defines them

	G         float64     // g-adv-comp, g-myopic-comp: comparisons within g are noisy
	Adversary Adversary   // g-adv-comp: who decides within g
	Sigma     float64     // sigma-noisy-load: standard deviation of the load noise
	Rho       kernels.Rho // rho-noisy-comp: probability of a correct comparison
	Tau       uint64      // tau-delay: the oldest a load read may be, in balls
	Delay     kernels.DelayMode
	Batch     uint64 // b-batch: balls per batch

	// Graphs and hypergraphs restrict a ball's choices (core/graph).
	GraphSpec  string // graphical: --graph
	Strategy   string // graphical: greedy, one-plus-beta or haar
	Stale      uint64 // graphical --strategy haar: set averages refreshed every Stale balls (0, 1: every ball)
	HaarScale  string // graphical --strategy haar: congestion or unit demand per tree node (core/haar.Scale)
	HaarRoute  string // graphical --strategy haar: each node's flow runs in G[S_i] (set) or in all of G (graph) (core/haar.Route)
	GraphClean string // graphical, hypergraph: refuse or drop self-loops and duplicates in files
	GroupSize  uint64 // kp-groups: k bins per group
	Aligned    bool   // kp-groups: aligned groups (else disjoint random windows)
	GroupRule  string // kp-groups: sum or min
	HyperSpec  string // hypergraph: --hyperedges
	ProbeAll   bool   // hypergraph: Godfrey's model, every bin of the hyperedge probed
	Refresh    uint64 // hypergraph: a fresh random hypergraph every Refresh balls; 0 never

	// IDEA (core/idea.go) and multi-dimensional balls.
	Retries    int    // idea: γ, the most rounds of d draws a ball makes
	Variant    string // idea: numbered, sampling or oracle
	SampleSize int    // idea --variant sampling: bins per check (0 until resolved to ⌈ln n⌉)
	SampleRule string // idea --variant sampling: reached (mean ≥ α) or rounded (mean ≥ α − 1/2)
	Held       string // idea: a held increment is dropped or carried (banked until the hold lifts)
	Dims       int    // idea, d-choice: dimensions D of a ball; 1 is scalar balls
	Populated  int    // idea, d-choice: populated dimensions f of each ball
	VectorGap  string // idea with --dims: a bin's estimated gap over the populated or all dimensions

	// Ages is tau-delay's empirical law of ages (--delay empirical).
	// AgesSource says where it came from, for output.
	Ages       *Ages
	AgesSource string
	// Replay is tau-delay's age per ball in ball order (--delay replay);
	// ReplaySource says where it came from.
	Replay       []uint32
	ReplaySource string
}

// Adversary decides comparisons within g in g-adv-comp.
type Adversary string

// The adversaries of g-adv-comp.
var adversaries = map[string]kernels.GRule{
	"greedy-reverse": kernels.GHeavier,
	"random":         kernels.GRandom,
	"max-target":     kernels.GMaxTarget,
}

var delayModes = []string{"fixed", "uniform", "adversarial", "empirical", "replay"} // index = kernels.DelayMode

// ParamDef describes one process parameter as a command-line flag.
type ParamDef struct {
	Name     string
	Usage    string
	Default  string // used when the flag is absent; "" means required
	List     bool   // balloc run accepts a comma-separated list of values
	Bool     bool   // true or false; the bare flag means true
	set      func(p *Params, v string) error
	value    func(p *Params) any
	required string // what to tell a user who left it out
}

// ParamDefs lists every process parameter, in flag order.
func ParamDefs() []ParamDef { return append([]ParamDef(nil), paramDefs...) }

var paramDefs = []ParamDef{
	{
		Name: "d", Usage: "samples per ball (d-choice, hypergraph, idea: per round) or groups (always-go-left), 1 ≤ d ≤ bins", Default: "2", List: true,
		set: func(p *Params, v string) error {
			d, err := strconv.ParseInt(v, 10, 64)
			if err != nil || d < 1 || d > 1<<20 {
				return fmt.Errorf("--d %q: want an integer in [1, min(bins, 1048576)]", v)
			}
			p.D = int(d)
			return nil
		},
		value: func(p *Params) any { return p.D },
	},
	{
		Name: "beta", Usage: "probability β of a two-choice step (one-plus-beta; graphical --strategy one-plus-beta), 0 ≤ β ≤ 1", List: true,
		required: "a probability in [0, 1]",
		set: func(p *Params, v string) error {
			b, err := parseReal(v)
			if err != nil || !(b >= 0 && b <= 1) {
				return fmt.Errorf("--beta %q: want a probability in [0, 1]", v)
			}
			p.Beta = b
			return nil
		},
		value: func(p *Params) any { return p.Beta },
	},
	{
		Name: "threshold", Usage: "θ: two-thinning keeps the first bin if its load < t/n + θ (any real)", List: true,
		required: "a real θ; the first bin is kept when its load < t/n + θ",
		set: func(p *Params, v string) error {
			x, err := parseReal(v)
			if err != nil || math.Abs(x) > 1e15 {
				return fmt.Errorf("--threshold %q: want a real number with |θ| ≤ 1e15", v)
			}
			p.Threshold = x
			return nil
		},
		value: func(p *Params) any { return p.Threshold },
	},
	{
		Name: "weights", Usage: "ball weights: unit, const:w (w > 0), exp:λ (exponential of rate λ > 0, mean 1/λ), uniform:a,b (0 ≤ a ≤ b, b > 0), pareto:α (shape α > 2, mean 1)", Default: "unit",
		set: func(p *Params, v string) error {
			w, err := ParseWeights(v)
			if err != nil {
				return err
			}
			p.Weights = w
			return nil
		},
		value: func(p *Params) any { return p.Weights.String() },
	},
	{
		Name: "g", Usage: "comparisons of loads differing by at most g are noisy, g ≥ 0 (g-adv-comp, g-myopic-comp)", List: true,
		required: "a real g ≥ 0: loads within g of each other are compared by the noise rule",
		set: func(p *Params, v string) error {
			g, err := parseReal(v)
			if err != nil || g < 0 || g > 1e15 {
				return fmt.Errorf("--g %q: want a real number in [0, 1e15]", v)
			}
			p.G = g
			return nil
		},
		value: func(p *Params) any { return p.G },
	},
	{
		Name: "adversary", Usage: "g-adv-comp: greedy-reverse (the heavier), random (a fair coin) or max-target", Default: "greedy-reverse", List: true,
		set: func(p *Params, v string) error {
			if _, ok := adversaries[v]; !ok {
				return fmt.Errorf("--adversary %q: want greedy-reverse, random or max-target", v)
			}
			p.Adversary = Adversary(v)
			return nil
		},
		value: func(p *Params) any { return string(p.Adversary) },
	},
	{
		Name: "sigma", Usage: "standard deviation σ ≥ 0 of the noise on each load read (sigma-noisy-load)", List: true,
		required: "a real σ ≥ 0, the standard deviation of the noise added to each load read",
		set: func(p *Params, v string) error {
			x, err := parseReal(v)
			if err != nil || x < 0 || x > 1e15 {
				return fmt.Errorf("--sigma %q: want a real number in [0, 1e15]", v)
			}
			p.Sigma = x
			return nil
		},
		value: func(p *Params) any { return p.Sigma },
	},
	{
		Name: "rho", Usage: "rho-noisy-comp: gauss:σ (ρ(δ) = Φ(δ/(√2σ))), logistic:s (1/(1+e^(−δ/s))) or step:g,p (p for δ ≤ g, 1 beyond)",
		required: "gauss:σ, logistic:s or step:g,p",
		set: func(p *Params, v string) error {
			r, err := ParseRho(v)
			if err != nil {
				return err
			}
			p.Rho = r
			return nil
		},
		value: func(p *Params) any { return RhoString(p.Rho) },
	},
	{
		Name: "tau", Usage: "tau-delay: the oldest a load read may be, in balls, 0 ≤ τ < 2^32 − 1", List: true,
		required: "a count τ ≥ 0 of balls (0 is two-choice)",
		set: func(p *Params, v string) error {
			x, err := ParseCount(v)
			if err != nil {
				return fmt.Errorf("--tau %v", err)
			}
			if x > 1<<32-2 {
				return fmt.Errorf("--tau %d: want at most 4294967294", x)
			}
			p.Tau = x
			return nil
		},
		value: func(p *Params) any { return p.Tau },
	},
	{
		Name: "delay", Usage: "tau-delay: how old each read is: fixed (τ), uniform (in [0, τ]), adversarial, empirical (drawn from --ages) or replay (one age per ball, from --replay)", Default: "fixed", List: true,
		set: func(p *Params, v string) error {
			for i, name := range delayModes {
				if v == name {
					p.Delay = kernels.DelayMode(i)
					return nil
				}
			}
			return fmt.Errorf("--delay %q: want fixed, uniform, adversarial, empirical or replay", v)
		},
		value: func(p *Params) any { return delayModes[p.Delay] },
	},
	{
		Name: "ages", Usage: "tau-delay --delay empirical: a file of \"age count\" lines, the law of read ages in balls",
		required: "a file of ages (with --delay empirical)",
		set: func(p *Params, v string) error {
			ages, err := ReadAges(v)
			if err != nil {
				return err
			}
			p.Ages, p.AgesSource = ages, v
			return nil
		},
		value: func(p *Params) any { return p.AgesSource },
	},
	{
		Name: "replay", Usage: "tau-delay --delay replay: a file of ages in balls, one per ball in ball order (balloc concurrent --save-ages writes one)",
		required: "a file of per-ball ages (with --delay replay)",
		set: func(p *Params, v string) error {
			ages, err := ReadReplay(v)
			if err != nil {
				return err
			}
			p.Replay, p.ReplaySource = ages, v
			return nil
		},
		value: func(p *Params) any { return p.ReplaySource },
	},
	{
		Name: "batch", Usage: "b-batch: balls per batch, b ≥ 1", List: true,
		required: "a count b ≥ 1 of balls per batch",
		set: func(p *Params, v string) error {
			x, err := ParseCount(v)
			if err != nil {
				return fmt.Errorf("--batch %v", err)
			}
			if x < 1 {
				return fmt.Errorf("--batch 0: want at least 1 ball per batch")
			}
			p.Batch = x
			return nil
		},
		value: func(p *Params) any { return p.Batch },
	},
}

// choice returns a ParamDef setter accepting one of the named values.
func choice(flag string, dst func(*Params) *string, values ...string) func(*Params, string) error {
	return func(p *Params, v string) error {
		if !slices.Contains(values, v) {
			return fmt.Errorf("--%s %q: want %s", flag, v, orList(values))
		}
		*dst(p) = v
		return nil
	}
}

// boolean returns a ParamDef setter for true or false.
func boolean(flag string, dst func(*Params) *bool) func(*Params, string) error {
	return func(p *Params, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("--%s %q: want true or false", flag, v)
		}
		*dst(p) = b
		return nil
	}
}

// orList writes "a, b or c".
func orList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// graphDefs are the parameters of the processes on graphs and hypergraphs.
var graphDefs = []ParamDef{
	{
		Name: "graph", Usage: "graphical: the graph, " + graph.Families,
		required: "a graph: " + graph.Families,
		set: func(p *Params, v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("--graph: want %s", graph.Families)
			}
			p.GraphSpec = v
			return nil
		},
		value: func(p *Params) any { return p.GraphSpec },
	},
	{
		Name: "strategy", Usage: "graphical: greedy (the less loaded endpoint), one-plus-beta (greedy with probability --beta, else a random endpoint) or haar (Bansal & Feldheim: compare the average loads of two sibling sets of a hierarchical decomposition, core/haar)", Default: "greedy", List: true,
		set:   choice("strategy", func(p *Params) *string { return &p.Strategy }, "greedy", "one-plus-beta", "haar"),
		value: func(p *Params) any { return p.Strategy },
	},
	{
		Name: "stale", Usage: "graphical --strategy haar: the set averages a ball reads are refreshed every K allocations (0 or 1: always current)", Default: "0", List: true,
		set: func(p *Params, v string) error {
			x, err := ParseCount(v)
			if err != nil {
				return fmt.Errorf("--stale %v", err)
			}
			p.Stale = x
			return nil
		},
		value: func(p *Params) any { return p.Stale },
	},
	{
		Name: "haar-scale", Usage: "graphical --strategy haar: each tree node's flow carries the most demand it can alone (congestion, the paper's strong drifts) or one unit (unit)", Default: "congestion", List: true,
		set:   choice("haar-scale", func(p *Params) *string { return &p.HaarScale }, "congestion", "unit"),
		value: func(p *Params) any { return p.HaarScale },
	},
	{
		Name: "haar-route", Usage: "graphical --strategy haar: each tree node's flow runs inside its set, G[S_i] (set), or in all of G (graph, as the paper's flow templates may; complete and general graphs)", Default: "set", List: true,
		set:   choice("haar-route", func(p *Params) *string { return &p.HaarRoute }, "set", "graph"),
		value: func(p *Params) any { return p.HaarRoute },
	},
	{
		Name: "graph-clean", Usage: "self-loops and duplicate edges in a --graph or --hyperedges file: refuse (an error) or drop", Default: "refuse",
		set:   choice("graph-clean", func(p *Params) *string { return &p.GraphClean }, "refuse", "drop"),
		value: func(p *Params) any { return p.GraphClean },
	},
	{
		Name: "group-size", Usage: "kp-groups: k bins per group, k ≥ 1", List: true,
		required: "a group size k ≥ 1",
		set: func(p *Params, v string) error {
			x, err := ParseCount(v)
			if err != nil {
				return fmt.Errorf("--group-size %v", err)
			}
			if x < 1 || x > kernels.MaxBins {
				return fmt.Errorf("--group-size %d: want 1 ≤ k ≤ bins", x)
			}
			p.GroupSize = x
			return nil
		},
		value: func(p *Params) any { return p.GroupSize },
	},
	{
		Name: "aligned", Usage: "kp-groups: true, n/k aligned groups; false, two random disjoint windows of k bins", Default: "true", List: true, Bool: true,
		set:   boolean("aligned", func(p *Params) *bool { return &p.Aligned }),
		value: func(p *Params) any { return p.Aligned },
	},
	{
		Name: "group-rule", Usage: "kp-groups: the lesser loaded group is the one with the smaller sum or the smaller min", Default: "sum", List: true,
		set:   choice("group-rule", func(p *Params) *string { return &p.GroupRule }, "sum", "min"),
		value: func(p *Params) any { return p.GroupRule },
	},
	{
		Name: "hyperedges", Usage: "hypergraph: the hyperedges, " + graph.HyperFamilies,
		required: "hyperedges: " + graph.HyperFamilies,
		set: func(p *Params, v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("--hyperedges: want %s", graph.HyperFamilies)
			}
			p.HyperSpec = v
			return nil
		},
		value: func(p *Params) any { return p.HyperSpec },
	},
	{
		Name: "probe-all", Usage: "hypergraph: probe every bin of the hyperedge (Godfrey's model) instead of d of them", Default: "false", Bool: true,
		set:   boolean("probe-all", func(p *Params) *bool { return &p.ProbeAll }),
		value: func(p *Params) any { return p.ProbeAll },
	},
	{
		Name: "refresh", Usage: "hypergraph random:s,k: draw a fresh hypergraph every R balls (0: never)", Default: "0", List: true,
		set: func(p *Params, v string) error {
			x, err := ParseCount(v)
			if err != nil {
				return fmt.Errorf("--refresh %v", err)
			}
			p.Refresh = x
			return nil
		},
		value: func(p *Params) any { return p.Refresh },
	},
}

func init() { paramDefs = append(paramDefs, graphDefs...) }

// ParseRho parses gauss:σ, logistic:s or step:g,p.
func ParseRho(v string) (kernels.Rho, error) {
	bad := func() (kernels.Rho, error) {
		return kernels.Rho{}, fmt.Errorf("--rho %q: want gauss:σ (σ ≥ 0), logistic:s (s ≥ 0) or step:g,p (g ≥ 0, 0 ≤ p ≤ 1)", v)
	}
	kind, arg, _ := strings.Cut(v, ":")
	switch kind {
	case "gauss", "logistic":
		x, err := parseReal(arg)
		if err != nil || x < 0 || x > 1e15 {
			return bad()
		}
		if kind == "gauss" {
			return kernels.Rho{Kind: kernels.RhoGauss, A: x}, nil
		}
		return kernels.Rho{Kind: kernels.RhoLogistic, A: x}, nil
	case "step":
		gs, ps, ok := strings.Cut(arg, ",")
		g, err1 := parseReal(gs)
		p, err2 := parseReal(ps)
		if !ok || err1 != nil || err2 != nil || g < 0 || g > 1e15 || p < 0 || p > 1 {
			return bad()
		}
		return kernels.Rho{Kind: kernels.RhoStep, A: g, B: p}, nil
	}
	return bad()
}

// RhoString is the canonical spelling of r, as ParseRho reads it.
func RhoString(r kernels.Rho) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch r.Kind {
	case kernels.RhoGauss:
		return "gauss:" + f(r.A)
	case kernels.RhoLogistic:
		return "logistic:" + f(r.A)
	}
	return "step:" + f(r.A) + "," + f(r.B)
}

func paramDef(name string) *ParamDef {
	for i := range paramDefs {
		if paramDefs[i].Name == name {
			return &paramDefs[i]
		}
	}
	return nil
}

// parseReal accepts a finite decimal or exponent-form real number.
func parseReal(v string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("not a finite real number")
	}
	return x, nil
}

// WeightKind is the law of ball weights.
type WeightKind int

const (
	WeightsUnit    WeightKind = iota // every ball weighs 1
	WeightsConst                     // every ball weighs Value
	WeightsExp                       // exponential of rate Value
	WeightsUniform                   // uniform on [Value, B)
	WeightsPareto                    // Pareto of shape Value > 2, scaled to mean 1
)

// Weights is a weight law.
type Weights struct {
	Kind  WeightKind
	Value float64
	B     float64 // uniform:a,b: the upper end b (Value is a)
}

// ParseWeights parses unit, const:w, exp:λ, uniform:a,b or pareto:α.
func ParseWeights(v string) (Weights, error) {
	kind, arg, hasArg := strings.Cut(v, ":")
	bad := func() (Weights, error) {
		return Weights{}, fmt.Errorf("--weights %q: want unit, const:w (w > 0), exp:λ (rate λ > 0), uniform:a,b (0 ≤ a ≤ b, b > 0) or pareto:α (α > 2)", v)
	}
	switch kind {
	case "uniform":
		as, bs, ok := strings.Cut(arg, ",")
		a, err1 := parseReal(as)
		b, err2 := parseReal(bs)
		switch {
		case !ok || err1 != nil || err2 != nil || a < 0 || b > 1e300 || !(b > 0):
			return bad()
		case a > b:
			return Weights{}, fmt.Errorf("--weights %q: uniform:a,b needs a ≤ b", v)
		}
		return Weights{Kind: WeightsUniform, Value: a, B: b}, nil
	case "pareto":
		a, err := parseReal(arg)
		if err != nil || a > 1e6 {
			return bad()
		}
		if !(a > 2) {
			return Weights{}, fmt.Errorf("--weights %q: pareto:α needs α > 2, so that the weights have a finite variance", v)
		}
		return Weights{Kind: WeightsPareto, Value: a}, nil
	case "unit":
		if hasArg {
			return bad()
		}
		return Weights{Kind: WeightsUnit}, nil
	case "const", "exp":
		x, err := parseReal(arg)
		if err != nil || !(x > 0) || x > 1e300 || x < 1e-300 {
			return bad()
		}
		if kind == "const" {
			return Weights{Kind: WeightsConst, Value: x}, nil
		}
		return Weights{Kind: WeightsExp, Value: x}, nil
	}
	return bad()
}

// String is the canonical spelling, as ParseWeights reads it.
func (w Weights) String() string {
	switch w.Kind {
	case WeightsConst:
		return "const:" + strconv.FormatFloat(w.Value, 'g', -1, 64)
	case WeightsExp:
		return "exp:" + strconv.FormatFloat(w.Value, 'g', -1, 64)
	case WeightsUniform:
		return "uniform:" + strconv.FormatFloat(w.Value, 'g', -1, 64) + "," + strconv.FormatFloat(w.B, 'g', -1, 64)
	case WeightsPareto:
		return "pareto:" + strconv.FormatFloat(w.Value, 'g', -1, 64)
	}
	return "unit"
}

// Unit reports whether every ball weighs the same, so loads are integers
// times a constant.
func (w Weights) Unit() bool { return w.Kind == WeightsUnit || w.Kind == WeightsConst }

// mean is the mean weight of a ball.
func (w Weights) mean() float64 {
	switch w.Kind {
	case WeightsConst:
		return w.Value
	case WeightsExp:
		return 1 / w.Value
	case WeightsUniform:
		return w.Value/2 + w.B/2
	}
	return 1 // unit; pareto is scaled to mean 1
}

// Scale is the weight of one ball when weights are constant.
func (w Weights) Scale() float64 {
	if w.Kind == WeightsConst {
		return w.Value
	}
	return 1
}

// SpecOption sets a parameter that has no command-line form, before NewSpec
// validates the spec.
type SpecOption func(*Params)

// WithAges gives tau-delay --delay empirical its law of ages (ages[a] reads
// of age a), from source (for output).
func WithAges(ages []uint64, source string) SpecOption {
	return func(p *Params) { p.Ages, p.AgesSource = AgesFromWeights(ages), source }
}
