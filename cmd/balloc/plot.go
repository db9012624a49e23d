package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/internal/files"
	"github.com/balloc/balloc/plot"
)

func newPlotCommand(stdout io.Writer) *cobra.Command {
	var out string
	var force bool
	o := plot.Options{FlagKind: "kind", FlagX: "x", FlagY: "y"}
	c := &cobra.Command{
		Use:   "plot DIR --kind K --out FILE.png|FILE.svg|FILE.tex",
		Short: "Plot a sweep: " + strings.Join(plot.Kinds, ", "),
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := plot.CheckFile("kind", o.Kind, "out", out); err != nil {
				return err
			}
			if err := o.Check(); err != nil {
				return err
			}
			var notes []string
			sd, err := sweep.ReadFolder(args[0], "plot", &notes)
			if err != nil {
				return err
			}
			if err := o.CheckGrid(sd.Manifest.Grid, &notes); err != nil {
				return err
			}
			var series []plot.Series
			for i, rs := range sd.ByPoint() {
				if len(rs) > 0 {
					series = append(series, plot.Series{Label: plot.SeriesLabel(sd.Manifest.Grid[i]), Results: rs, Point: sd.Manifest.Grid[i]})
				}
			}
			if len(series) == 0 {
				return fmt.Errorf("%s holds no results to plot", args[0])
			}
			fig, note, err := plot.Build(o, series, false)
			if err != nil {
				return err
			}
			// Checked once the sweep's files are read, so that an output
			// that is one of them is known as such.
			target, err := newOutput("--out", out, force)
			if err != nil {
				return err
			}
			if err := writeFigure(fig, target); err != nil {
				return err
			}
			printNotes(c.ErrOrStderr(), notes)
			fmt.Fprintln(stdout, out+note)
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Kind, "kind", "", strings.Join(plot.Kinds, ", ")+" (required)")
	fl.StringVar(&out, "out", "", "the picture: .png or .svg, or .tex (a standalone pgfplots file) (required)")
	fl.StringVar(&o.Title, "title", "", "title (default: from the kind and the sweep)")
	fl.BoolVar(&force, "force", false, forceHelp)
	fl.BoolVar(&o.LogX, "log-x", false, "logarithmic x axis (gap-vs-balls, gap-vs-param; gap-vs-bins always is)")
	fl.BoolVar(&o.LogY, "log-y", false, "logarithmic y axis (not for gap-distribution; gap-vs-* take one by themselves when the gaps span a factor of 10 and are positive)")
	fl.BoolVar(&o.LinearY, "linear-y", false, "a linear y axis even where gap-vs-* would take a log one")
	fl.BoolVar(&o.Bands, "bands", false, "shade the 95% confidence interval of the mean around each line")
	fl.BoolVar(&o.Theory, "theory", false, "draw the fluid limit beside the simulation, where balloc has one")
	fl.StringVar(&o.X, "x", "", "gap-vs-param: the parameter on the x axis, or bins or balls (default: the one the sweep varies)")
	fl.StringVar(&o.Y, "y", "gap", "gap-vs-param, gap-vs-bins: gap (final), max-gap (largest over the checkpoints) or mean-queue (the supermarket's time-averaged queue length)")
	return c
}

// drawPlot renders one kind of plot of the series into out: .png, .svg, or
// .tex (pgfplots), all from the same figure. A log axis the data cannot
// take (a value ≤ 0) is an error, or, with linearFallback (run --plot,
// whose table is already printed), drawn linear with a note returned to
// say so.
func drawPlot(o plot.Options, series []plot.Series, out *files.Output, linearFallback bool) (note string, err error) {
	f, note, err := plot.Build(o, series, linearFallback)
	if err != nil {
		return "", err
	}
	return note, writeFigure(f, out)
}

// writeFigure writes f into out: .png, .svg or .tex by its name.
func writeFigure(f *plot.Figure, out *files.Output) error {
	wt, err := f.WriterTo(strings.TrimPrefix(strings.ToLower(filepath.Ext(out.Path())), "."))
	if err == nil {
		err = out.Write(func(w io.Writer) error {
			_, err := wt.WriteTo(w)
			return err
		})
	}
	if err != nil {
		return failure{fmt.Errorf("writing %s: %v", out.Path(), err)}
	}
	return nil
}

// printNotes writes the notes, one a line, once a command is past every
// check.
func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}
