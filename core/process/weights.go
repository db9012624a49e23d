package process

import (
	"fmt"
	"strconv"
	"strings"
)

// WeightsParam is --weights, bound to w: for every weighted process.
func WeightsParam(w *Weights) *Param {
	return Custom("weights", "ball weights: unit, const:w (w > 0), exp:λ (exponential of rate λ > 0, mean 1/λ), uniform:a,b (0 ≤ a ≤ b, b > 0), pareto:α (shape α > 2, mean 1)",
		func(v string) error {
			x, err := ParseWeights(v)
			if err != nil {
				return err
			}
			*w = x
			return nil
		}, func() any { return w.String() }).Def("unit")
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
		a, err1 := ParseReal(as)
		b, err2 := ParseReal(bs)
		switch {
		case !ok || err1 != nil || err2 != nil || a < 0 || b > 1e300 || !(b > 0):
			return bad()
		case a > b:
			return Weights{}, fmt.Errorf("--weights %q: uniform:a,b needs a ≤ b", v)
		}
		return Weights{Kind: WeightsUniform, Value: a, B: b}, nil
	case "pareto":
		a, err := ParseReal(arg)
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
		x, err := ParseReal(arg)
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
func (w Weights) Mean() float64 {
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
