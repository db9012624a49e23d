package haar

import (
	"testing"

	"github.com/balloc/balloc/core/graph"
)

// TestMeasuredDifferencesMatchDriftBalance checks, at every level of T, the
// simulated mean sibling difference against the drift balance's
// prediction |E|/(n·λ_i/C) (exact for vertex pairs; for larger sets a
// walk of drift μ and variance (1/k_l + 1/k_r)/n per ball). Each graph runs
// long enough that a batch of samples spans several of the slowest level's
// relaxation times; the tolerance is the 95% half-width times 2 (a
// 4-standard-error band), plus half a lattice step where the prediction is
// under two (LevelDifference.Step: complete:32's root, 0.061 predicted
// against steps of 1/16, measures 0.044).
func TestMeasuredDifferencesMatchDriftBalance(t *testing.T) {
	for _, c := range []struct {
		spec  string
		route Route
		bpb   uint64 // balls per bin
	}{
		{"cycle:64", RouteSet, 40000},
		{"torus:8,8", RouteSet, 20000},
		{"random-regular:64,3", RouteSet, 40000},
		{"complete:32", RouteSet, 20000},
		{"complete:32", RouteGraph, 20000},
	} {
		g, err := graph.Parse(c.spec, graph.Options{Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Build(g, Options{Route: c.route})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range p.MeasureDifferences(c.bpb*p.N, 2000, 5) {
			tol := 2 * l.HalfWidth
			if l.Predicted < 2*l.Step {
				tol += l.Step / 2
			}
			t.Logf("%s route %d depth %d: predicted %.3f, measured %.3f ± %.3f, relax %.0f·n (batch %.0f·n)",
				c.spec, c.route, l.Depth, l.Predicted, l.Measured, l.HalfWidth, l.Relax/float64(p.N), float64(c.bpb)/2/20)
			if d := l.Measured - l.Predicted; d > tol || -d > tol {
				t.Errorf("%s route %d depth %d: measured %.3f ± %.3f, predicted %.3f", c.spec, c.route, l.Depth, l.Measured, l.HalfWidth, l.Predicted)
			}
		}
	}
}
