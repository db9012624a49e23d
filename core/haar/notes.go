package haar

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/graph"
)

// WeakDriftNote warns when the plan's weakest drift, min over nodes of
// λ_i/C, is below d/log₂²n (d = 2|E|/n the mean degree): Bansal &
// Feldheim ask for drifts of Ω(d/polylog n) per sibling pair, and this
// rule takes the polylog to be log₂²n, so the warning fires when some
// node's stationary sibling difference, d/(2·λ_i/C), exceeds log₂²n / 2.
// It fires on dense graphs routed inside G[S_i], where small sets have
// few edges among them: on complete:128 two sibling vertices share one
// edge (leaf drift 1 against d = 127, threshold 2.6), and at m = n³ the
// gap is 155.9 ± 11.5 against 17.1 ± 1.0 with --haar-route graph (leaf
// drift 9.1). cycle:1024 (0.15 against 0.02), tori, hypercubes and
// random-regular:1024,3 (0.15 against 0.02) pass.
func WeakDriftNote(g *graph.Graph, in Info, route string) string {
	if g.N < 4 || len(in.Levels) == 0 {
		return ""
	}
	weakest, at := math.Inf(1), 0
	for _, l := range in.Levels {
		if l.Min < weakest {
			weakest, at = l.Min, l.Depth
		}
	}
	lg := math.Log2(float64(g.N))
	d := 2 * float64(g.E) / float64(g.N)
	need := d / (lg * lg)
	if weakest >= need {
		return ""
	}
	hint := ""
	if route == "set" {
		hint = "; --haar-route graph routes in all of G (haar-info compares)"
	}
	return fmt.Sprintf("the plan's weakest drift λ_i/C = %.3g (depth %d) is below d/log₂²n = %.3g, the paper's Ω(d/polylog n) with polylog = log₂²n: "+
		"those sibling sets settle %.3g apart on average, so the gap can grow well beyond polylog n%s",
		weakest, at, need, in.DifferenceScale(weakest), hint)
}

// IrregularNote warns, for a graph that is not regular, that the Haar-drift
// allocation is the paper's for d-regular graphs: a uniform edge's endpoint
// is vertex v with probability deg(v)/2|E|, not 1/n, and the difference
// (up to (d_max − d_min)/2|E| per ball) is a fixed bias that haar's
// load-dependent drifts, each at most λ_i/C per node, cannot cancel once it
// exceeds them, so low-degree vertices fall behind linearly in m (path:1024
// at m = 4000·n: the endpoints at about 2540). Greedy corrects it locally.
func IrregularNote(g *graph.Graph) string {
	st := g.Stats()
	if st.Regular {
		return ""
	}
	return fmt.Sprintf("%s is not regular (degrees %d–%d): Bansal & Feldheim's allocation is defined for d-regular graphs; "+
		"here vertex v receives deg(v)/2|E| of the uniform edges' endpoints, a fixed bias haar's drifts may not cancel, so low-degree vertices can fall behind linearly in m",
		g.Spec, st.MinDegree, st.MaxDegree)
}
