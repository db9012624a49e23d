package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/balloc/balloc/core"
)

var plotKinds = []string{"gap-vs-balls", "gap-vs-bins", "gap-distribution", "load-histogram"}

func newPlotCommand(stdout io.Writer) *cobra.Command {
	var kind, out, title string
	c := &cobra.Command{
		Use:   "plot DIR --kind K --out FILE.png|FILE.svg",
		Short: "Plot a sweep: gap-vs-balls, gap-vs-bins, gap-distribution or load-histogram",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkPlotFlags("kind", kind, "out", out); err != nil {
				return err
			}
			if err := checkWritable("out", out); err != nil {
				return err
			}
			sd, err := readSweep(args[0], "plot", c.ErrOrStderr())
			if err != nil {
				return err
			}
			var series []plotSeries
			for i, rs := range sd.byPoint() {
				if len(rs) > 0 {
					series = append(series, plotSeries{label: seriesLabel(sd.man.Grid[i]), results: rs, point: sd.man.Grid[i]})
				}
			}
			if len(series) == 0 {
				return fmt.Errorf("%s holds no results to plot", args[0])
			}
			if err := drawPlot(kind, series, title, out); err != nil {
				return err
			}
			fmt.Fprintln(stdout, out)
			return nil
		},
	}
	c.Flags().StringVar(&kind, "kind", "", strings.Join(plotKinds, ", ")+" (required)")
	c.Flags().StringVar(&out, "out", "", "the picture: .png or .svg (required)")
	c.Flags().StringVar(&title, "title", "", "title (default: from the kind and the sweep)")
	return c
}

// checkPlotFlags checks a plot's kind and file, named as the flags that set them.
func checkPlotFlags(kindFlag, kind, outFlag, out string) error {
	if !slices.Contains(plotKinds, kind) {
		return fmt.Errorf("--%s %q: want %s", kindFlag, kind, strings.Join(plotKinds, ", "))
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".png", ".svg":
	default:
		return fmt.Errorf("--%s %q: want a .png or .svg file", outFlag, out)
	}
	return nil
}

// plotSeries is one grid point's trials.
type plotSeries struct {
	label   string
	results []*core.Result
	point   gridPoint
}

func seriesLabel(gp gridPoint) string {
	l := gp.Process
	if p := paramsText(gp.Params); p != "" {
		l += " " + p
	}
	return fmt.Sprintf("%s, n=%s, m=%s", l, core.FormatCount(gp.Bins), core.FormatCount(gp.Balls))
}

// palette gives up to 14 series distinct colours (soft, then dark);
// seriesDashes tells apart lines whose colours repeat past that.
var palette = append(slices.Clone(plotutil.SoftColors), plotutil.DarkColors...)

func seriesColor(k int) color.Color { return palette[k%len(palette)] }

func seriesDashes(k int) []vg.Length { return plotutil.Dashes(k / len(palette)) }

// drawPlot renders one kind of plot of the series into out (.png or .svg).
func drawPlot(kind string, series []plotSeries, title, out string) error {
	p := plot.New()
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	var err error
	switch kind {
	case "gap-vs-balls":
		err = plotGapVsBalls(p, series)
	case "gap-vs-bins":
		err = plotGapVsBins(p, series)
	case "gap-distribution":
		err = plotGapDistribution(p, series)
	case "load-histogram":
		err = plotLoadHistogram(p, series)
	}
	if err != nil {
		return err
	}
	if title != "" {
		p.Title.Text = title
	}
	// The legend sits top right: make the canvas taller for a long legend and
	// raise the top of the y axis so that no line or bar runs under it.
	width, height := 8*vg.Inch, 5*vg.Inch
	r := p.Legend.Rectangle(draw.New(vgimg.New(width, height)))
	if legend := r.Max.Y - r.Min.Y; legend > 0 {
		if legend > 2*vg.Inch {
			height += legend - 2*vg.Inch
		}
		if area := height - 1.2*vg.Inch; p.Y.Max > p.Y.Min {
			free := 1 - float64(legend+4)/float64(area)
			p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/math.Max(free, 0.3)
		}
	}
	if err := p.Save(width, height, out); err != nil {
		return failure{fmt.Errorf("writing %s: %v", out, err)}
	}
	return nil
}

func meanMinMax(xs []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = min(lo, x), max(hi, x)
	}
	return mean / float64(len(xs)), lo, hi
}

// gap-vs-balls: the mean gap over trials at each checkpoint, a band from the
// least to the largest trial, one line per grid point; time in balls per bin,
// so that grid points of different n share the axis.
func plotGapVsBalls(p *plot.Plot, series []plotSeries) error {
	p.Title.Text = "Gap over time"
	p.X.Label.Text = "balls per bin, t = balls thrown / n"
	p.Y.Label.Text = "gap = max load − balls/bins (balls)"
	for k, s := range series {
		cps := len(s.results[0].Checkpoints)
		if cps == 0 {
			return fmt.Errorf("--kind gap-vs-balls needs checkpoints: set checkpoints in the sweep (or --checkpoints)")
		}
		var line, band plotter.XYs
		var upper plotter.XYs
		for c := range cps {
			var gaps []float64
			for _, r := range s.results {
				if c < len(r.Checkpoints) {
					gaps = append(gaps, r.Checkpoints[c].Gap)
				}
			}
			m, lo, hi := meanMinMax(gaps)
			x := float64(s.results[0].Checkpoints[c].Balls) / float64(s.point.Bins)
			line = append(line, plotter.XY{X: x, Y: m})
			band = append(band, plotter.XY{X: x, Y: lo})
			upper = append(upper, plotter.XY{X: x, Y: hi})
		}
		slices.Reverse(upper)
		poly, err := plotter.NewPolygon(append(band, upper...))
		if err != nil {
			return err
		}
		col := seriesColor(k)
		r, g, b, _ := col.RGBA()
		poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 50}
		poly.LineStyle.Width = 0
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color = col
		l.Width = vg.Points(1.5)
		l.Dashes = seriesDashes(k)
		p.Add(poly, l)
		p.Legend.Add(fmt.Sprintf("%s (mean, band: min–max of %d)", s.label, len(s.results)), l)
	}
	return nil
}

// gap-vs-bins: the mean gap with its 95% interval against n (log scale),
// one line per grid point family (all but n equal), with the fluid limit's
// first-moment estimate dashed where core has it.
func plotGapVsBins(p *plot.Plot, series []plotSeries) error {
	p.Title.Text = "Gap against the number of bins"
	p.X.Label.Text = "bins n (log scale)"
	p.Y.Label.Text = "gap at the end (balls)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	type family struct {
		label  string
		points []plotSeries
	}
	var fams []*family
	byKey := map[string]*family{}
	for _, s := range series {
		gp := s.point
		key := fmt.Sprintf("%s %s m/n=%g", gp.Process, paramsText(gp.Params), float64(gp.Balls)/float64(gp.Bins))
		f := byKey[key]
		if f == nil {
			f = &family{label: key}
			byKey[key] = f
			fams = append(fams, f)
		}
		f.points = append(f.points, s)
	}
	for k, f := range fams {
		slices.SortFunc(f.points, func(a, b plotSeries) int { return int(a.point.Bins) - int(b.point.Bins) })
		var xys plotter.XYs
		var errs plotter.YErrors
		var theory plotter.XYs
		for _, s := range f.points {
			var gaps []float64
			for _, r := range s.results {
				gaps = append(gaps, r.Gap)
			}
			m, half := meanCI(gaps)
			xys = append(xys, plotter.XY{X: float64(s.point.Bins), Y: m})
			errs = append(errs, struct{ Low, High float64 }{half, half})
			if spec, err := core.NewSpec(s.point.Process, stringParams(s.point.Process, s.point.Params), core.Common{Bins: s.point.Bins, Balls: s.point.Balls, Trials: 1, Alpha: 1}); err == nil {
				if prof, err := core.FluidOf(spec); err == nil && spec.Params.Dims <= 1 {
					th := core.CompareTheory(prof, s.point.Bins, nil)
					theory = append(theory, plotter.XY{X: float64(s.point.Bins), Y: float64(th.FirstMomentMax) - float64(s.point.Balls)/float64(s.point.Bins)})
				}
			}
		}
		col := seriesColor(k)
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, pts.Color = col, col
		l.Dashes = seriesDashes(k)
		eb := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: l.LineStyle}
		eb.Color = col
		p.Add(l, pts, eb)
		p.Legend.Add(f.label+" (mean, 95% CI)", l, pts)
		if len(theory) == len(xys) && len(theory) > 0 {
			tl, err := plotter.NewLine(theory)
			if err != nil {
				return err
			}
			tl.Color = col
			tl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(tl)
			p.Legend.Add(f.label+" fluid-limit estimate", tl)
		}
	}
	return nil
}

// stringParams turns a manifest's params back into the flag values the
// process takes (an alias such as two-choice records a d it fixes itself).
func stringParams(process string, m map[string]any) map[string]string {
	out := map[string]string{}
	proc, err := core.LookupProcess(process)
	if err != nil {
		return out
	}
	for k, v := range m {
		if proc.Takes(k) {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// gap-distribution: for each grid point, the share of trials ending at each
// gap, as grouped bars.
func plotGapDistribution(p *plot.Plot, series []plotSeries) error {
	p.Title.Text = "Distribution of the final gap over trials"
	p.X.Label.Text = "gap (balls)"
	p.Y.Label.Text = "trials (%)"
	var values []float64
	for _, s := range series {
		for _, r := range s.results {
			v := math.Round(r.Gap*10) / 10
			if !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	slices.Sort(values)
	width := vg.Points(max(2, 40/float64(len(series))))
	for k, s := range series {
		share := make(plotter.Values, len(values))
		for _, r := range s.results {
			share[slices.Index(values, math.Round(r.Gap*10)/10)] += 100 / float64(len(s.results))
		}
		bars, err := plotter.NewBarChart(share, width)
		if err != nil {
			return err
		}
		bars.Color = seriesColor(k)
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(k)-float64(len(series)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.label, bars)
	}
	labels := make([]string, len(values))
	for i, v := range values {
		labels[i] = g(v)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.7, float64(len(values))-0.3 // room for the outer bars of a group
	return nil
}

// load-histogram: the mean fraction of bins at each load relative to the
// average, at the end, one line per grid point.
func plotLoadHistogram(p *plot.Plot, series []plotSeries) error {
	p.Title.Text = "Final load distribution"
	p.X.Label.Text = "load − balls/bins (balls)"
	p.Y.Label.Text = "fraction of bins (mean over trials)"
	for k, s := range series {
		frac := map[float64]float64{}
		for _, r := range s.results {
			if len(r.Histogram) == 0 {
				return fmt.Errorf("--kind load-histogram needs load histograms; %s has none (random weights)", s.label)
			}
			for _, l := range r.Histogram {
				frac[l.Load-r.Average] += float64(l.Count) / float64(r.Bins) / float64(len(s.results))
			}
		}
		var xs []float64
		for x := range frac {
			xs = append(xs, x)
		}
		slices.Sort(xs)
		var xys plotter.XYs
		for _, x := range xs {
			xys = append(xys, plotter.XY{X: x, Y: frac[x]})
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, pts.Color = seriesColor(k), seriesColor(k)
		l.Dashes = seriesDashes(k)
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	return nil
}
