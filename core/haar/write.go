package haar

import (
	"fmt"
	"io"
	"time"

	"github.com/balloc/balloc/core/graph"
)

// WritePlan describes a plan on g as balloc haar-info prints it: the graph
// and the notes on it, the tree, the scale (scale, route and asked are the
// graphical process's --haar-scale, --haar-route as run and as asked), C,
// the supports and the drift per level.
func WritePlan(w io.Writer, g *graph.Graph, in Info, scale, route, asked string) {
	fmt.Fprintf(w, "graph        %s: %s\n", g.Spec, g.Stats())
	if note := IrregularNote(g); note != "" {
		fmt.Fprintf(w, "note         %s\n", note)
	}
	if note := WeakDriftNote(g, in, asked); note != "" {
		fmt.Fprintf(w, "note         %s\n", note)
	}
	fmt.Fprintf(w, "tree         depth %d, %d internal nodes (sets split: %d spectral, %d BFS; %d flows rerouted in an ancestor set)\n",
		in.Depth, in.Nodes, in.Spectral, in.BFS, in.Rerouted)
	fmt.Fprintf(w, "scale        %s, flows routed in %s; C = max over edges of Σ_i λ_i|f_i(e)| = %.4g\n", scale, routeText(route, asked), in.C)
	fmt.Fprintf(w, "support      nodes per edge law (∅ not counted): max %d, mean %.3g\n", in.MaxSupport, in.MeanSupport)
	if in.CGIterations > 0 {
		fmt.Fprintf(w, "solver       %d conjugate-gradient iterations in all, at most %d for one flow, %d not converged (finished on a tree)\n",
			in.CGIterations, in.MaxCGIterations, in.Unconverged)
	}
	fmt.Fprintf(w, "drift        λ_i/C per level (mass moved toward the lighter child per ball, in units of edge bias),\n")
	fmt.Fprintf(w, "             and the mean sibling difference |L̄(S_l) − L̄(S_r)| it holds at stationarity, |E|/(n·λ_i/C), at its weakest node:\n")
	for _, l := range in.Levels {
		fmt.Fprintf(w, "  depth %2d   %7d nodes   min %.4g   mean %.4g   max %.4g   difference up to %.3g\n",
			l.Depth, l.Nodes, l.Min, l.Mean, l.Max, in.DifferenceScale(l.Min))
	}
}

// routeText says where the flows run (route "set" or "graph").
func routeText(route, asked string) string {
	text := "G[S_i]"
	if route == "graph" {
		text = "all of G"
	}
	if asked == "auto" {
		text += " (--haar-route auto: its weakest drift is the larger)"
	}
	return text
}

// MeasureSamples are the snapshots WriteMeasured takes of the second half
// of its run.
const MeasureSamples = 2000

// WriteMeasured simulates bpb balls per bin from the plan (balloc
// haar-info --measure) and prints, per level, the mean sibling difference measured
// beside the predicted.
func WriteMeasured(stdout io.Writer, p *Plan, n, bpb, seed uint64) {
	start := time.Now()
	levels := p.MeasureDifferences(bpb*n, MeasureSamples, seed)
	fmt.Fprintf(stdout, "measured     mean |L̄(S_l) − L̄(S_r)| per level over %d balls per bin (the first half burn-in, then %d snapshots; 95%% interval from 20 batch means,\n",
		bpb, MeasureSamples)
	fmt.Fprintf(stdout, "             honest only where a batch, %.3g·n balls, spans several of the level's relaxation time), %.3g s:\n",
		float64(bpb)/2/20, time.Since(start).Seconds())
	for _, l := range levels {
		fmt.Fprintf(stdout, "  depth %2d   %7d nodes   predicted %8.4g   measured %8.4g ± %-8.3g   relaxation %.3g·n balls\n",
			l.Depth, l.Nodes, l.Predicted, l.Measured, l.HalfWidth, l.Relax/float64(n))
	}
}
