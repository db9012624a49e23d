package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Params holds every process parameter; a process reads the ones its
// catalogue entry names. The zero value of a field means "not set".
type Params struct {
	D         int     // d-choice, always-go-left: samples per ball / groups
	Beta      float64 // one-plus-beta: probability of a two-choice step
	Threshold float64 // two-thinning: θ, relative to the current average
	Weights   Weights // ball weights where the process defines them
}

// ParamDef describes one process parameter as a command-line flag.
type ParamDef struct {
	Name     string
	Usage    string
	Default  string // used when the flag is absent; "" means required
	set      func(p *Params, v string) error
	value    func(p *Params) any
	required string // what to tell a user who left it out
}

// ParamDefs lists every process parameter, in flag order.
func ParamDefs() []ParamDef { return append([]ParamDef(nil), paramDefs...) }

var paramDefs = []ParamDef{
	{
		Name: "d", Usage: "samples per ball (d-choice) or groups (always-go-left), 1 ≤ d ≤ bins", Default: "2",
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
		Name: "beta", Usage: "probability β of a two-choice step, 0 ≤ β ≤ 1",
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
		Name: "threshold", Usage: "θ: two-thinning keeps the first bin if its load < t/n + θ (any real)",
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
		Name: "weights", Usage: "ball weights: unit, const:w (w > 0), exp:λ (exponential of rate λ > 0, mean 1/λ)", Default: "unit",
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
	WeightsUnit  WeightKind = iota // every ball weighs 1
	WeightsConst                   // every ball weighs Value
	WeightsExp                     // exponential of rate Value
)

// Weights is a weight law.
type Weights struct {
	Kind  WeightKind
	Value float64
}

// ParseWeights parses unit, const:w or exp:λ.
func ParseWeights(v string) (Weights, error) {
	kind, arg, hasArg := strings.Cut(v, ":")
	bad := func() (Weights, error) {
		return Weights{}, fmt.Errorf("--weights %q: want unit, const:w (w > 0) or exp:λ (rate λ > 0)", v)
	}
	switch kind {
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
	}
	return "unit"
}

// Unit reports whether every ball weighs the same, so loads are integers
// times a constant.
func (w Weights) Unit() bool { return w.Kind != WeightsExp }

// Scale is the weight of one ball when weights are constant.
func (w Weights) Scale() float64 {
	if w.Kind == WeightsConst {
		return w.Value
	}
	return 1
}
