package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/balloc/balloc/report"
)

// Figure is a plot as data: what the .png/.svg renderer draws and the .tex
// writer lists, so that both hold the same coordinates.
type Figure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Bands                 bool // shade Lo–Hi around lines
	Bars                  bool // grouped bars, one group per distinct X
	Lines                 []Line
}

// Line is one series of a figure: a line with its marks, intervals and
// band, or a set of bars; Style picks its colour (and dashes past the
// palette).
type Line struct {
	Label  string
	Style  int  // colour (and dashes past the palette)
	Marks  bool // a mark at each point
	Theory bool // a prediction: a thin dashed line, no marks, bars or bands
	Points []Point
}

// Point is one coordinate: Err is the half-width of a 95% interval
// (0: none), Lo and Hi the least and the largest trial.
type Point struct {
	X, Y, Err, Lo, Hi float64
}

// dropNonFinite takes out of the Figure the points that cannot be drawn (an
// x or y that is infinite or NaN: gaps past the float range), and the
// intervals and bands that are not finite, and says so in a note (""
// when nothing was dropped). A Figure left with no point is an error.
func (f *Figure) dropNonFinite() (note string, err error) {
	finite := func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }
	dropped, bars, left := 0, 0, 0
	for i := range f.Lines {
		s := &f.Lines[i]
		kept := s.Points[:0]
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				dropped++
				continue
			}
			if !finite(p.Err) || !finite(p.Lo) || !finite(p.Hi) {
				bars++
				if !finite(p.Err) {
					p.Err = 0
				}
				if !finite(p.Lo) || !finite(p.Hi) {
					p.Lo, p.Hi = p.Y, p.Y
				}
			}
			kept = append(kept, p)
		}
		s.Points = kept
		left += len(kept)
	}
	if dropped > 0 && left == 0 {
		return "", fmt.Errorf("no point of the plot is a finite number (gaps beyond the float range); nothing to draw")
	}
	if dropped > 0 {
		note += fmt.Sprintf(" (%d points left out: not finite numbers)", dropped)
	}
	if bars > 0 {
		note += fmt.Sprintf(" (%d intervals or bands left out: not finite)", bars)
	}
	return note, nil
}

// logAxisError is a log axis refused for data that is not positive: why
// says which value, advice what to leave out.
type logAxisError struct {
	y           bool // the y axis, else the x axis
	why, advice string
}

func (e *logAxisError) Error() string {
	flag := "--log-x"
	if e.y {
		flag = "--log-y"
	}
	return fmt.Sprintf("%s: %s; %s", flag, e.why, e.advice)
}

// checkLog refuses a log axis for data that is not positive, naming the
// first value that is not (a *logAxisError).
func (f *Figure) checkLog() error {
	for _, s := range f.Lines {
		for _, p := range s.Points {
			if f.LogX && p.X <= 0 {
				return &logAxisError{false, fmt.Sprintf("%s has x = %s, and a log axis needs x > 0", s.Label, report.Number(p.X)), "leave out --log-x"}
			}
			if !f.LogY {
				continue
			}
			switch {
			case p.Y <= 0:
				return &logAxisError{true, fmt.Sprintf("%s has y = %s at x = %s, and a log axis needs y > 0", s.Label, report.Number(p.Y), report.Number(p.X)), "leave out --log-y"}
			case p.Err > 0 && p.Y-p.Err <= 0:
				return &logAxisError{true, fmt.Sprintf("the 95%% interval of %s at x = %s reaches %s, and a log axis needs y > 0", s.Label, report.Number(p.X), report.Number(p.Y-p.Err)), "leave out --log-y"}
			case f.Bands && !s.Theory && p.Lo <= 0:
				return &logAxisError{true, fmt.Sprintf("the band of %s at x = %s reaches %s, and a log axis needs y > 0", s.Label, report.Number(p.X), report.Number(p.Lo)), "leave out --log-y or --bands"}
			}
		}
	}
	return nil
}

// palette: 22 colours told apart on white (Tableau's ten, then twelve
// darker or more saturated); seriesDashes tells apart lines whose colours
// repeat past that.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255},
	{0xbc, 0xbd, 0x22, 255}, {0x17, 0xbe, 0xcf, 255},
	{0x00, 0x00, 0x00, 255}, {0xb8, 0x86, 0x0b, 255}, {0x00, 0x00, 0x80, 255}, {0xff, 0x14, 0x93, 255},
	{0x00, 0x64, 0x00, 255}, {0x80, 0x00, 0x00, 255}, {0xff, 0x00, 0xff, 255}, {0x80, 0x80, 0x00, 255},
	{0x4b, 0x00, 0x82, 255}, {0x00, 0x80, 0x80, 255}, {0x7c, 0xfc, 0x00, 255}, {0x6a, 0x5a, 0xcd, 255},
}

func seriesColor(k int) color.NRGBA { return palette[k%len(palette)] }

func seriesDashes(k int) []vg.Length { return plotutil.Dashes(k / len(palette)) }

var theoryDashes = []vg.Length{vg.Points(4), vg.Points(3)}

// imageWriter draws f as an image of the format "png" or "svg".
func (f *Figure) imageWriter(format string) (io.WriterTo, error) {
	p := gplot.New()
	p.Title.Text = f.Title
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	if f.LogX {
		p.X.Scale = gplot.LogScale{}
	}
	if f.LogY {
		p.Y.Scale = gplot.LogScale{}
	}
	p.X.Tick.Marker = roundTicks{log: f.LogX}
	p.Y.Tick.Marker = roundTicks{log: f.LogY}
	if f.Bars {
		if err := renderBars(p, f); err != nil {
			return nil, err
		}
	} else if err := renderLines(p, f); err != nil {
		return nil, err
	}
	// A log axis over one value: gonum would widen it by ±1, through 0.
	for _, a := range []struct {
		on   bool
		axis *gplot.Axis
	}{{f.LogX, &p.X}, {f.LogY, &p.Y}} {
		if a.on && a.axis.Min == a.axis.Max && a.axis.Min > 0 {
			a.axis.Min, a.axis.Max = a.axis.Min/2, a.axis.Max*2
		}
	}
	// Marks and error bars at the ends of the x range are drawn whole.
	if hasMarks(f) && p.X.Max > p.X.Min {
		if f.LogX {
			r := math.Pow(p.X.Max/p.X.Min, 0.03)
			p.X.Min, p.X.Max = p.X.Min/r, p.X.Max*r
		} else {
			d := 0.03 * (p.X.Max - p.X.Min)
			p.X.Min, p.X.Max = p.X.Min-d, p.X.Max+d
		}
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
			free := math.Max(1-float64(legend+4)/float64(area), 0.3)
			if f.LogY {
				p.Y.Max = p.Y.Min * math.Pow(p.Y.Max/p.Y.Min, 1/free)
			} else {
				p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)/free
			}
		}
	}
	return p.WriterTo(width, height, format)
}

func hasMarks(f *Figure) bool {
	for _, s := range f.Lines {
		if s.Marks && !f.Bars {
			return true
		}
	}
	return false
}

func renderLines(p *gplot.Plot, f *Figure) error {
	for _, s := range f.Lines {
		xys := make(plotter.XYs, len(s.Points))
		for i, q := range s.Points {
			xys[i] = plotter.XY{X: q.X, Y: q.Y}
		}
		col := seriesColor(s.Style)
		if s.Theory {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return err
			}
			l.Color, l.Width, l.Dashes = col, vg.Points(1), theoryDashes
			p.Add(l)
			p.Legend.Add(s.Label, l)
			continue
		}
		if f.Bands {
			var poly plotter.XYs
			for _, q := range s.Points {
				poly = append(poly, plotter.XY{X: q.X, Y: q.Lo})
			}
			for i := len(s.Points) - 1; i >= 0; i-- {
				poly = append(poly, plotter.XY{X: s.Points[i].X, Y: s.Points[i].Hi})
			}
			pg, err := plotter.NewPolygon(poly)
			if err != nil {
				return err
			}
			pg.Color = color.NRGBA{R: col.R, G: col.G, B: col.B, A: 50}
			pg.LineStyle.Width = 0
			p.Add(pg)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = col, vg.Points(1.5), seriesDashes(s.Style)
		p.Add(l)
		thumbs := []gplot.Thumbnailer{l}
		if s.Marks {
			pts, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			pts.Color = col
			pts.Shape = plotutil.Shape(s.Style / len(palette))
			p.Add(pts)
			thumbs = append(thumbs, pts)
		}
		var errs plotter.YErrors
		any := false
		for _, q := range s.Points {
			errs = append(errs, struct{ Low, High float64 }{q.Err, q.Err})
			any = any || q.Err > 0
		}
		if any {
			eb := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: l.LineStyle, CapWidth: vg.Points(5)}
			eb.LineStyle.Dashes = nil
			eb.LineStyle.Width = vg.Points(1)
			p.Add(eb)
		}
		p.Legend.Add(s.Label, thumbs...)
	}
	return nil
}

func renderBars(p *gplot.Plot, f *Figure) error {
	var values []float64
	if len(f.Lines) > 0 {
		for _, q := range f.Lines[0].Points {
			values = append(values, q.X)
		}
	}
	width := vg.Points(max(2, 40/float64(len(f.Lines))))
	for k, s := range f.Lines {
		share := make(plotter.Values, len(s.Points))
		for i, q := range s.Points {
			share[i] = q.Y
		}
		bars, err := plotter.NewBarChart(share, width)
		if err != nil {
			return err
		}
		bars.Color = seriesColor(s.Style)
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(k)-float64(len(f.Lines)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.Label, bars)
	}
	labels := make([]string, len(values))
	for i, v := range values {
		labels[i] = report.Number(v)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.7, float64(len(values))-0.3 // room for the outer bars of a group
	return nil
}

// roundTicks puts labelled ticks at round values: 1, 2 or 5 × 10^k apart
// on a linear axis, 4 to 10 of them; on a log axis at the powers of ten,
// or at 1, 2 and 5 × 10^k when the axis spans under 2.5 decades or that
// leaves fewer than three (at every integer × 10^k when that still does).
type roundTicks struct{ log bool }

func (t roundTicks) Ticks(lo, hi float64) []gplot.Tick {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return nil // no round values on an infinite axis (the Figure drops such points)
	}
	if hi <= lo {
		return []gplot.Tick{{Value: lo, Label: tickLabel(lo, 0)}}
	}
	if t.log {
		return logTicks(lo, hi)
	}
	// The smallest step of 1, 2 or 5 × 10^k with at most 8 labels.
	step, minors := 0.0, 5
	for mag := math.Pow(10, math.Floor(math.Log10(hi-lo))-2); step == 0; mag *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if math.Floor(hi/(m*mag))-math.Ceil(lo/(m*mag)) < 8 {
				step, minors = m*mag, map[float64]int{1: 5, 2: 4, 5: 5}[m]
				break
			}
		}
	}
	var ticks []gplot.Tick
	minor := step / float64(minors)
	for i := math.Ceil(lo / minor); i*minor <= hi*(1+1e-12)+1e-300; i++ {
		v := i * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		tk := gplot.Tick{Value: v}
		if int64(math.Round(i))%int64(minors) == 0 {
			tk.Label = tickLabel(v, step)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

func logTicks(lo, hi float64) []gplot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil // no range a log axis can show (imageWriter keeps it from here)
	}
	kLo, kHi := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	count := func(labelled func(int) bool) int {
		c := 0
		for k := kLo; k <= kHi; k++ {
			for m := 1; m < 10; m++ {
				if v := float64(m) * math.Pow(10, float64(k)); in(v) && labelled(m) {
					c++
				}
			}
		}
		return c
	}
	// The sparsest labelling with at least three labels: powers of ten
	// (from 2.5 decades on), then 1, 2 and 5 × 10^k, then every integer.
	sets := []func(int) bool{
		func(m int) bool { return m == 1 },
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	}
	if math.Log10(hi/lo) < 2.5 {
		sets = sets[1:]
	}
	labelled := sets[len(sets)-1]
	for _, l := range sets {
		if count(l) >= 3 {
			labelled = l
			break
		}
	}
	var ticks []gplot.Tick
	for k := kLo; k <= kHi; k++ {
		for m := 1; m < 10; m++ {
			v := float64(m) * math.Pow(10, float64(k))
			if !in(v) {
				continue
			}
			tk := gplot.Tick{Value: v}
			if labelled(m) {
				tk.Label = tickLabel(v, 0)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// tickLabel writes a round value without trailing zeros, from 10^5 on as
// 1e6 or 2.5e6.
func tickLabel(v, step float64) string {
	if v == math.Trunc(v) && math.Abs(v) >= 1e5 {
		// 1e5, 1.5e6: the mantissa and exponent as balloc writes counts.
		m, e, _ := strings.Cut(strconv.FormatFloat(math.Abs(v), 'e', -1, 64), "e")
		s := m + "e" + strings.TrimLeft(strings.TrimPrefix(e, "+"), "0")
		if v < 0 {
			s = "−" + s
		}
		return s
	}
	decimals := 0
	if step > 0 && step < 1 {
		decimals = int(math.Ceil(-math.Log10(step) - 1e-9))
	} else if step == 0 {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if v < 0 {
		s = "−" + s[1:]
	}
	return s
}
