package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// balloc graph-stats and hypergraph-stats build a structure exactly as
// balloc run would (same spec, same seed) and describe it.

func newGraphStatsCommand(stdout io.Writer) *cobra.Command {
	var spec, seed, clean string
	c := &cobra.Command{
		Use:   "graph-stats --graph G [--seed S] [--graph-clean drop]",
		Short: "Build a --graph as balloc run would and report n, edges, degrees, regularity, connectivity",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if spec == "" {
				return fmt.Errorf("--graph is required: %s", graph.Families)
			}
			sd, err := parseCountFlag("seed", seed)
			if err != nil {
				return err
			}
			start := time.Now()
			s, err := core.NewSpec("graphical", map[string]string{"graph": spec, "graph-clean": clean},
				core.Common{Balls: 1, Trials: 1, Seed: sd, Alpha: 1})
			if err != nil {
				return err
			}
			g := s.Graph()
			built := time.Since(start)
			fmt.Fprintf(stdout, "graph   %s\n", g.Spec)
			if g.Origin != "" {
				fmt.Fprintf(stdout, "origin  %s\n", g.Origin)
			}
			storage := "implicit (no memory per edge)"
			if !g.Implicit() {
				storage = fmt.Sprintf("edge array and CSR, %s", units.FormatBytes(float64(4*len(g.Edges)+8*len(g.Offsets)+4*len(g.Adj))))
			}
			fmt.Fprintf(stdout, "stored  %s; built in %.3g s\n", storage, built.Seconds())
			fmt.Fprintf(stdout, "stats   %s\n", g.Stats())
			return nil
		},
	}
	c.Flags().StringVar(&spec, "graph", "", "the graph: "+graph.Families)
	c.Flags().StringVar(&seed, "seed", "1", "the run's seed, which chooses random graphs")
	c.Flags().StringVar(&clean, "graph-clean", "refuse", "self-loops and duplicate edges in a file: refuse or drop")
	return c
}

func newHypergraphStatsCommand(stdout io.Writer) *cobra.Command {
	var spec, bins, d, balls, refresh, seed, clean, samples string
	c := &cobra.Command{
		Use:   "hypergraph-stats --hyperedges H [--bins N] [--d D] [--balls M] [--refresh R] [--seed S]",
		Short: "Build --hyperedges as balloc run would and report its balancedness and pair visibility",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if spec == "" {
				return fmt.Errorf("--hyperedges is required: %s", graph.HyperFamilies)
			}
			var com core.Common
			var err error
			com.Trials, com.Alpha = 1, 1
			if c.Flags().Changed("bins") {
				if com.Bins, err = parseCountFlag("bins", bins); err != nil {
					return err
				}
			}
			if com.Balls, err = parseCountFlag("balls", balls); err != nil {
				return err
			}
			if com.Seed, err = parseCountFlag("seed", seed); err != nil {
				return err
			}
			k, err := parseCountFlag("samples", samples)
			if err != nil {
				return err
			}
			opt := graph.HyperStatsOptions{Balls: com.Balls, Samples: k}
			if err := graph.CheckHyperStatsSpec(spec, com.Bins, opt); err != nil {
				return err
			}
			params := map[string]string{"hyperedges": spec, "d": d, "refresh": refresh, "graph-clean": clean}
			s, err := core.NewSpec("hypergraph", params, com)
			if err != nil {
				return err
			}
			rng := kernels.TrialStream(com.Seed, 0, kernels.LaneStructure)
			d, refresh := s.Proc.(process.OnHypergraph).Probing()
			opt = graph.HyperStatsOptions{Balls: s.Balls, Refresh: refresh, Samples: k, RNG: &rng}
			if err := graph.CheckHyperStats(s.Hypergraph(), opt); err != nil {
				return err
			}
			st := graph.ComputeHyperStats(s.Hypergraph(), d, opt)
			for _, line := range st.Lines() {
				fmt.Fprintln(stdout, line)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&spec, "hyperedges", "", "the hyperedges: "+graph.HyperFamilies)
	fl.StringVar(&bins, "bins", "", "number of bins (a file of hyperedges sets it when absent)")
	fl.StringVar(&d, "d", "2", "bins probed per ball")
	fl.StringVar(&balls, "balls", "0", "balls of the run, for the visibility over the whole run (0: per round only)")
	fl.StringVar(&refresh, "refresh", "0", "a fresh random hypergraph every R balls, as balloc run --refresh")
	fl.StringVar(&seed, "seed", "1", "the run's seed, which chooses random hypergraphs")
	fl.StringVar(&clean, "graph-clean", "refuse", "repeated bins in a hyperedge of a file: refuse or drop")
	fl.StringVar(&samples, "samples", "0", "pairs sampled when the hypergraph is too large to count exactly (0: the default, 65536)")
	return c
}
