package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/units"
)

// balloc haar-info preprocesses a graph for graphical --strategy haar exactly
// as balloc run would and describes the plan: the decomposition's depth,
// the normalisation C, the supports of the edges' laws, the drift strength
// per level, and what the preprocessing cost.
func newHaarInfoCommand(stdout io.Writer) *cobra.Command {
	var spec, seed, clean, scale, route, measure string
	c := &cobra.Command{
		Use:   "haar-info --graph G [--seed S] [--haar-scale congestion|unit] [--haar-route set|graph] [--measure M]",
		Short: "Preprocess a --graph for graphical --strategy haar and report depth, C, supports, drift per level, time and memory",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if spec == "" {
				return fmt.Errorf("--graph is required: %s", graph.Families)
			}
			sd, err := parseCountFlag("seed", seed)
			if err != nil {
				return err
			}
			bpb, err := parseCountFlag("measure", measure)
			if err != nil {
				return err
			}
			if bpb > measureMax {
				return fmt.Errorf("--measure %d balls per bin is more than %d: lower --measure", bpb, uint64(measureMax))
			}
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			s, err := core.NewSpec("graphical", map[string]string{"graph": spec, "strategy": "haar", "haar-scale": scale, "haar-route": route, "graph-clean": clean},
				core.Common{Balls: 1, Trials: 1, Seed: sd, Alpha: 1})
			if err != nil {
				return err
			}
			took := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			p, g := s.Haar(), s.Graph()
			if bpb*g.N > measureBallsMax {
				return fmt.Errorf("--measure %d on %d vertices is %d balls, more than 2^40: lower --measure (or --graph's size)", bpb, g.N, bpb*g.N)
			}
			in := p.Info
			h := s.HaarSetting()
			haar.WritePlan(stdout, g, in, h.Scale, h.Route, h.Asked)
			if bpb > 0 {
				haar.WriteMeasured(stdout, p, g.N, bpb, sd)
			}
			fmt.Fprintf(stdout, "time         %.3g s to build the graph and the plan (the plan alone: %.3g s)\n", took.Seconds(), in.Build.Seconds())
			fmt.Fprintf(stdout, "memory       tables the loop reads %s; plan %s; allocated while building %s; heap now %s\n",
				units.FormatBytes(float64(in.TableBytes)), units.FormatBytes(float64(in.PlanBytes)),
				units.FormatBytes(float64(after.TotalAlloc-before.TotalAlloc)), units.FormatBytes(float64(after.HeapInuse)))
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&spec, "graph", "", "the graph: "+graph.Families)
	fl.StringVar(&seed, "seed", "1", "the run's seed, which chooses random graphs and the spectral start vectors")
	fl.StringVar(&clean, "graph-clean", "refuse", "self-loops and duplicate edges in a file: refuse or drop")
	fl.StringVar(&scale, "haar-scale", "congestion", "demand per tree node: congestion (the most each flow carries alone) or unit")
	fl.StringVar(&measure, "measure", "0", "also simulate M balls per bin from the plan and print, per level, the mean sibling difference measured beside the predicted (0: do not)")
	fl.StringVar(&route, "haar-route", "set", "where each node's flow runs: inside its set G[S_i] (set) or in all of G (graph)")
	return c
}

// haar-info --measure: at most measureMax balls per bin and
// measureBallsMax balls in all (2^40: hours at haar's 10^7–10^8 balls per
// second), sampled haar.MeasureSamples times.
const (
	measureMax      = 1 << 30
	measureBallsMax = 1 << 40
)
