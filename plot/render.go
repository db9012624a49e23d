package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/balloc/balloc/report"
)

// Figure is a plot as data: what the .png/.svg renderer draws and the .tex
// writer lists, so that both hold the same coordinates.
type Figure struct {
	Title, XLabel, YLabel string
	// Caption is a line under the title: what every series shares (n, m,
	// a process, the trials), so that the legend names only what differs.
	Caption    string
	LogX, LogY bool
	Bands      bool // shade Lo–Hi around lines: the 95% interval of the mean
	// Bars: each line is bars at its points' X (on a numeric axis), the
	// lines side by side within BarWidth (in x units), y in [0, 100].
	Bars     bool
	BarWidth float64
	Lines    []Line
	// Notes are the legend's last lines: what the lines, bars, bands and
	// dashes mean, said once.
	Notes []Note
}

// Line is one series of a figure: a line with its marks, intervals and
// band, or a set of bars; Style picks its colour (and dashes past the
// palette).
type Line struct {
	Label string
	Style int  // colour (and dashes past the palette)
	Marks bool // a mark at each point
	// Theory: a prediction beside the line of the same Style, drawn thin and
	// dashed in its colour, with no marks, bars, bands or legend entry of
	// its own (a Note says what the dashes are).
	Theory bool
	Points []Point
}

// Point is one coordinate: Err is the half-width of a 95% interval
// (0: none) drawn as an error bar, Lo and Hi the ends of the band (the
// 95% interval of the mean).
type Point struct {
	X, Y, Err, Lo, Hi float64
}

// Note is a legend line after the series: Dashed draws a dashed grey line
// beside it (what the theory lines are), else it is text alone.
type Note struct {
	Text   string
	Dashed bool
}

// autoLogY is whether a log y axis shows the figure better than a linear
// one: every value it draws (points, the lower ends of error bars and of
// bands) is positive, and they span a factor of 10 or more.
func (f *Figure) autoLogY() bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range f.Lines {
		for _, p := range s.Points {
			low := p.Y - p.Err
			if f.Bands && !s.Theory {
				low = min(low, p.Lo)
			}
			if low <= 0 {
				return false
			}
			lo, hi = min(lo, low), max(hi, p.Y+p.Err)
		}
	}
	return hi >= 10*lo
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

// The image: 8 × 5 inches (taller for a long legend), the title and the
// caption on top, the axes left and the legend in a column right of them,
// outside the data, so that no line or bar runs under it and the y axis
// keeps its own range (gap-distribution's [0, 100]).
const (
	figWidth, figHeight = 8 * vg.Inch, 5 * vg.Inch
	figMargin           = vg.Length(8) // points
)

// imageWriter draws f as an image of the format "png" or "svg". The SVG's
// text is drawn as glyph outlines (outlineText): it looks the same in any
// renderer, with or without the font.
func (f *Figure) imageWriter(format string) (io.WriterTo, error) {
	l, err := f.layout()
	if err != nil {
		return nil, err
	}
	switch format {
	case "png":
		img := vgimg.PngCanvas{Canvas: vgimg.New(figWidth, l.height)}
		l.draw(draw.New(img))
		return img, nil
	case "svg":
		svg := vgsvg.New(figWidth, l.height)
		l.draw(draw.New(&outlineText{CanvasSizer: svg}))
		return svg, nil
	}
	return nil, fmt.Errorf("unsupported image format %q", format)
}

// figLayout is a figure ready to draw: the axes, the legend beside them,
// the title's styles, and the page's height.
type figLayout struct {
	f              *Figure
	p              *gplot.Plot
	legend         gplot.Legend
	title, caption draw.TextStyle
	yLabel         string // drawn here, not by gonum (see draw)
	legendW, top   vg.Length
	legendH        vg.Length
	below          bool // the legend under the axes (wide labels), else right of them
	height         vg.Length
}

func (f *Figure) layout() (*figLayout, error) {
	p, err := f.axes()
	if err != nil {
		return nil, err
	}
	l := &figLayout{f: f, p: p, legend: p.Legend, yLabel: p.Y.Label.Text}
	p.Legend = gplot.New().Legend // drawn beside the axes, not over them
	p.Y.Label.Text = ""
	l.title, l.caption = titleStyles(p)
	r := l.legend.Rectangle(draw.New(vgimg.New(figWidth, figHeight)))
	l.legendW, l.legendH = r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	l.top = f.titleHeight(l.title, l.caption)
	// A legend wider than 30% of the page would squeeze the axes: it goes
	// under them, and the page grows by its height.
	if l.below = l.legendW > 0.3*figWidth; l.below {
		l.height = figHeight + l.legendH + figMargin
	} else {
		l.height = max(figHeight, l.top+l.legendH+2*figMargin)
	}
	return l, nil
}

// draw draws the figure on a page of figWidth × l.height.
func (l *figLayout) draw(dc draw.Canvas) {
	f := l.f
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	dc.FillText(l.title, vg.Point{X: dc.Center().X, Y: dc.Max.Y - figMargin/2}, f.Title)
	if f.Caption != "" {
		y := dc.Max.Y - figMargin/2 - l.title.Rectangle(f.Title).Size().Y
		dc.FillText(l.caption, vg.Point{X: dc.Center().X, Y: y}, f.Caption)
	}
	body := draw.Crop(dc, figMargin/2, -figMargin, figMargin/2, -l.top)
	switch {
	case l.below:
		strip := draw.Crop(body, 4*figMargin, 0, 0, 0)
		strip.Max.Y = strip.Min.Y + l.legendH
		l.legend.Draw(strip)
		body = draw.Crop(body, 0, 0, l.legendH+figMargin, 0)
	case l.legendW > 0:
		l.legend.Draw(draw.Crop(body, body.Max.X-body.Min.X-l.legendW, 0, 0, 0))
		body = draw.Crop(body, 0, -l.legendW-2*figMargin, 0, 0)
	}
	// The y label, as gonum draws it but centred on the data area: gonum
	// reserves room for it at the arithmetic middle of the y range, which on
	// a log axis is near the top, and pushes the axes down by the overshoot.
	lb := l.p.Y.Label
	if l.yLabel == "" {
		l.p.Draw(body)
		return
	}
	descent := lb.TextStyle.FontExtents().Descent
	x := body.Min.X + lb.TextStyle.Height(l.yLabel)
	axes := draw.Crop(body, x-body.Min.X+descent+lb.Padding+vg.Points(4), 0, 0, 0)
	l.p.Draw(axes)
	sty := lb.TextStyle
	sty.Rotation += math.Pi / 2
	da := l.p.DataCanvas(axes)
	body.FillText(sty, vg.Point{X: x - descent, Y: da.Center().Y}, l.yLabel)
}

// titleStyles are the title's style (gonum's, aligned to hang from a
// point) and the caption's, smaller.
func titleStyles(p *gplot.Plot) (title, caption draw.TextStyle) {
	title = p.Title.TextStyle
	title.XAlign, title.YAlign = draw.XCenter, draw.YTop
	caption = title
	caption.Font.Size = vg.Points(10)
	return title, caption
}

// titleHeight is the room above the axes: the title, the caption, margins.
func (f *Figure) titleHeight(title, caption draw.TextStyle) vg.Length {
	h := figMargin
	if f.Title != "" {
		h += title.Rectangle(f.Title).Size().Y
	}
	if f.Caption != "" {
		h += caption.Rectangle(f.Caption).Size().Y
	}
	return h + figMargin/2
}

// axes is the gonum plot of f: its data, axes and ticks, and the legend
// entries (imageWriter draws the legend beside it).
func (f *Figure) axes() (*gplot.Plot, error) {
	p := gplot.New()
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.Padding = vg.Points(2)
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
		renderBars(p, f)
	} else if err := renderLines(p, f); err != nil {
		return nil, err
	}
	if len(f.Notes) > 0 && len(f.Lines) > 0 {
		p.Legend.Add("") // a blank line between the series and the notes
	}
	for _, n := range f.Notes {
		if n.Dashed {
			l := &plotter.Line{LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1), Dashes: theoryDashes}}
			p.Legend.Add(n.Text, l)
		} else {
			p.Legend.Add(n.Text)
		}
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
	if f.LogY && p.Y.Min > 0 && p.Y.Max > p.Y.Min {
		p.Y.Min, p.Y.Max = roundLogEnds(p.Y.Min, p.Y.Max)
	}
	// A linear axis whose values start within a tenth of its top above 0
	// (fractions of bins) starts at 0, labelled.
	if !f.LogY && p.Y.Min > 0 && p.Y.Min < 0.1*p.Y.Max {
		p.Y.Min = 0
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
	return p, nil
}

// roundLogEnds widens a log axis to the nearest 1, 2 or 5 × 10^k at each
// end when that is within a factor 1.25, so that both ends carry a label
// (gaps to 49.6 otherwise end the axis just short of its label 50).
func roundLogEnds(lo, hi float64) (float64, float64) {
	for _, m := range []float64{1, 2, 5, 10} {
		if v := m * math.Pow(10, math.Floor(math.Log10(hi))); v >= hi && v <= 1.25*hi {
			hi = v
			break
		}
	}
	for _, m := range []float64{10, 5, 2, 1} {
		if v := m * math.Pow(10, math.Floor(math.Log10(lo))); v <= lo && v >= lo/1.25 {
			lo = v
			break
		}
	}
	return lo, hi
}

func hasMarks(f *Figure) bool {
	for _, s := range f.Lines {
		if s.Marks && !f.Bars {
			return true
		}
	}
	return false
}

// renderLines adds each line: a theory line thin and dashed with no legend
// entry; else the band (under Bands), the line, its marks and error bars.
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
			l.Color, l.Width, l.Dashes = col, vg.Points(1.2), theoryDashes
			p.Add(l)
			continue
		}
		if f.Bands {
			if err := addBand(p, s, col); err != nil {
				return err
			}
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
		addErrorBars(p, s, xys, l.LineStyle)
		p.Legend.Add(s.Label, thumbs...)
	}
	return nil
}

// addBand shades Lo–Hi under a line, in its colour, light.
func addBand(p *gplot.Plot, s Line, col color.NRGBA) error {
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
	pg.Color = color.NRGBA{R: col.R, G: col.G, B: col.B, A: 60}
	pg.LineStyle.Width = 0
	p.Add(pg)
	return nil
}

// addErrorBars draws ±Err at each point that has one.
func addErrorBars(p *gplot.Plot, s Line, xys plotter.XYs, ls draw.LineStyle) {
	var errs plotter.YErrors
	any := false
	for _, q := range s.Points {
		errs = append(errs, struct{ Low, High float64 }{q.Err, q.Err})
		any = any || q.Err > 0
	}
	if any {
		eb := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: ls, CapWidth: vg.Points(5)}
		eb.LineStyle.Dashes = nil
		eb.LineStyle.Width = vg.Points(1)
		p.Add(eb)
	}
}

// renderBars adds each line as bars at its points' X on a numeric x axis,
// y from 0 to 100 (a percentage), ticks no closer than a bar width. The
// lines with a bar at the same X share its width side by side, in order
// (ggplot2's "dodge"): a series alone at its gaps keeps the whole width.
func renderBars(p *gplot.Plot, f *Figure) {
	w := f.BarWidth
	if w <= 0 {
		w = 1
	}
	for _, b := range dodge(f.Lines, w) {
		p.Add(b)
		p.Legend.Add(b.line.Label, b)
	}
	p.X.Min, p.X.Max = p.X.Min-w/2, p.X.Max+w/2
	p.Y.Min, p.Y.Max = 0, 100
	p.X.Tick.Marker = roundTicks{minStep: w}
	p.Y.Tick.Marker = roundTicks{}
}

// dodge places the bars: the lines with a bar at the same X split the
// middle 90% of the width w around it, in their order.
func dodge(lines []Line, w float64) []*barSet {
	at := map[float64][]int{} // X → the lines with a bar there
	for i, s := range lines {
		for _, q := range s.Points {
			at[q.X] = append(at[q.X], i)
		}
	}
	var out []*barSet
	for i, s := range lines {
		b := &barSet{line: s, color: seriesColor(s.Style)}
		for _, q := range s.Points {
			k, slot := float64(len(at[q.X])), float64(slices.Index(at[q.X], i))
			b.lo = append(b.lo, w*(-0.45+0.9*slot/k))
			b.hi = append(b.hi, w*(-0.45+0.9*(slot+1)/k))
		}
		out = append(out, b)
	}
	return out
}

// barSet draws one line of a bar figure: a bar from 0 to Y over
// [X+lo, X+hi] at each point, at least minBar wide on the page.
type barSet struct {
	line   Line
	color  color.NRGBA
	lo, hi []float64
}

const minBar = vg.Length(1.5) // points

// Plot draws the bars.
func (b *barSet) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, q := range b.line.Points {
		x0, x1, y0, y1 := trX(q.X+b.lo[i]), trX(q.X+b.hi[i]), trY(0), trY(q.Y)
		if x1-x0 < minBar {
			mid := (x0 + x1) / 2
			x0, x1 = mid-minBar/2, mid+minBar/2
		}
		c.FillPolygon(b.color, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
}

// DataRange is the bars' extent: every bar whole, y from 0.
func (b *barSet) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for i, q := range b.line.Points {
		xmin, xmax = min(xmin, q.X+b.lo[i]), max(xmax, q.X+b.hi[i])
		ymax = max(ymax, q.Y)
	}
	return xmin, xmax, 0, ymax
}

// Thumbnail draws the legend's swatch: a filled square.
func (b *barSet) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	mid := (c.Min.X + c.Max.X) / 2
	r := vg.Rectangle{Min: vg.Point{X: mid - h/2, Y: c.Min.Y}, Max: vg.Point{X: mid + h/2, Y: c.Max.Y}}
	c.SetColor(b.color)
	c.Fill(r.Path())
}

// roundTicks puts labelled ticks at round values: 1, 2 or 5 × 10^k apart
// on a linear axis, 4 to 10 of them; on a log axis at the powers of ten,
// or at 1, 2 and 5 × 10^k when the axis spans under 2.5 decades or that
// leaves fewer than three (at every integer × 10^k when that still does).
// minStep, when set, is the least distance between two labels (a bar
// width: no tick between two integer gaps).
type roundTicks struct {
	log     bool
	minStep float64
}

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
			if m*mag < t.minStep*(1-1e-9) {
				continue
			}
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
