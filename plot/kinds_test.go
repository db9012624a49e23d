package plot

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"image"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
)

// series builds a grid point's trials from their final gaps and, per
// trial, the gaps at checkpoints of 100 balls each.
func series(process string, params map[string]any, bins, balls uint64, gaps []float64, cps [][]float64) Series {
	gp := sweep.Point{Process: process, Params: params, Bins: bins, Balls: balls, Trials: len(gaps)}
	s := Series{Label: SeriesLabel(gp), Point: gp}
	for k, g := range gaps {
		r := &result.Result{Process: process, Bins: bins, Balls: balls, Gap: g, MaxGap: g}
		if cps != nil {
			for c, cg := range cps[k] {
				r.Checkpoints = append(r.Checkpoints, result.Checkpoint{Balls: uint64(c+1) * 100, Gap: cg})
			}
		}
		s.Results = append(s.Results, r)
	}
	return s
}

func build(t *testing.T, o Options, ss ...Series) *Figure {
	t.Helper()
	o.FlagKind, o.FlagX, o.FlagY = "kind", "x", "y"
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	f, _, err := Build(o, ss, false)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// gap-distribution is bars at the integer gaps on a numeric axis (gaps 2,
// 3, 7, 8: x = 2, 3, 7, 8, with nothing at 4–6), each series' shares
// adding up to 100%, and the y axis from 0 to 100 exactly. A categorical
// axis (x = 0, 1, 2, 3, the old one) or shares of all trials fail.
func TestGapDistributionNumericBars(t *testing.T) {
	two := series("two-choice", map[string]any{"d": 2}, 1000, 1e6, []float64{2, 3, 2, 2}, nil)
	beta := series("one-plus-beta", map[string]any{"beta": 0.5}, 1000, 1e6, []float64{7, 8, 8, 7, 8}, nil)
	f := build(t, Options{Kind: "gap-distribution"}, two, beta)
	want := [][]Point{{{X: 2, Y: 75}, {X: 3, Y: 25}}, {{X: 7, Y: 40}, {X: 8, Y: 60}}}
	for i, l := range f.Lines {
		if !slices.Equal(l.Points, want[i]) {
			t.Errorf("%s: %v, want %v", l.Label, l.Points, want[i])
		}
	}
	if f.BarWidth != 1 {
		t.Errorf("bar width %v, want 1 for integer gaps", f.BarWidth)
	}
	p, err := f.axes()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max != 100 || p.X.Min > 1.5 || p.X.Max < 8.5 || p.X.Max > 9 {
		t.Errorf("axes x [%v, %v], y [%v, %v]; want x around [1.5, 8.5], y [0, 100]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	// A tick is labelled at integers only (no 2.5 between two bars).
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" && tk.Value != math.Trunc(tk.Value) {
			t.Errorf("x tick %q at %v between two integer gaps", tk.Label, tk.Value)
		}
	}
	// Each bar is centred on its gap: lone bars take the middle 90%; two
	// at one gap split it.
	for _, b := range dodge(f.Lines, f.BarWidth) {
		for i := range b.line.Points {
			if b.lo[i] != -0.45 || b.hi[i] != 0.45 {
				t.Errorf("%s at %v: bar [%v, %v] off its gap", b.line.Label, b.line.Points[i].X, b.lo[i], b.hi[i])
			}
		}
	}
	shared := []Line{{Points: []Point{{X: 2, Y: 50}}}, {Points: []Point{{X: 2, Y: 50}, {X: 3, Y: 50}}}}
	bs := dodge(shared, 1)
	if bs[0].lo[0] != -0.45 || bs[0].hi[0] != 0 || bs[1].lo[0] != 0 || bs[1].hi[0] != 0.45 || bs[1].lo[1] != -0.45 {
		t.Errorf("two bars at gap 2: [%v, %v] and [%v, %v]", bs[0].lo[0], bs[0].hi[0], bs[1].lo[0], bs[1].hi[0])
	}
}

// Legends name what tells series apart and say once what the marks are:
// no "(mean, 95% CI)" per entry, no "n=1000, m=10^6" when every series has
// it (the caption has), no entry per theory curve, and with one trial no
// interval claimed.
func TestLegendCompactAndHonest(t *testing.T) {
	cps := [][]float64{{1, 2, 3}, {2, 3, 3}, {2, 2, 4}}
	one := series("one-choice", nil, 1000, 300, []float64{3, 3, 4}, cps)
	two := series("two-choice", map[string]any{"d": 2}, 1000, 300, []float64{3, 3, 4}, cps)
	f := build(t, Options{Kind: "gap-vs-balls", Bands: true, Theory: true}, one, two)
	var labels []string
	theory := 0
	for _, l := range f.Lines {
		if l.Theory {
			theory++
			continue
		}
		labels = append(labels, l.Label)
	}
	if !slices.Equal(labels, []string{"one-choice", "two-choice d=2"}) || f.Caption != "n=1000, m=300, 3 trials each" {
		t.Errorf("labels %q, caption %q", labels, f.Caption)
	}
	if theory != 2 {
		t.Fatalf("%d theory curves, want 2", theory)
	}
	var notes []string
	for _, n := range f.Notes {
		notes = append(notes, n.Text)
	}
	if !slices.Equal(notes, []string{"lines: mean over the trials", noteBand, noteGapTheory}) {
		t.Errorf("notes %q", notes)
	}
	// The .tex legend: one entry per series and per note, none per curve.
	var tex bytes.Buffer
	wt, _ := f.WriterTo("tex")
	if _, err := wt.WriteTo(&tex); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tex.String(), `\addlegendentry{`); n != 2+3 {
		t.Errorf("%d legend entries in the .tex, want 2 series + 3 notes:\n%s", n, tex.String())
	}
	if !strings.Contains(tex.String(), `m=300, 3 trials each}`) {
		t.Errorf(".tex has no caption")
	}

	// One trial: no band, no interval, said so.
	single := series("two-choice", map[string]any{"d": 2}, 1<<34, 1<<34, []float64{2}, [][]float64{{1, 2, 2}})
	f = build(t, Options{Kind: "gap-vs-balls", Bands: true}, single)
	if f.Caption != "n=2^34, m=2^34, one trial each" || len(f.Notes) != 1 || f.Notes[0].Text != "lines: one trial (no interval)" {
		t.Errorf("one trial: caption %q, notes %v", f.Caption, f.Notes)
	}
	for _, n := range f.Notes {
		if strings.Contains(n.Text, "CI") {
			t.Errorf("one trial: note %q claims an interval", n.Text)
		}
	}
}

// --bands shades the 95% interval of the mean, mean ± t(0.975, k−1)·s/√k,
// by hand: gaps 1, 2, 3, 4 have mean 2.5, s = 1.2910, t(0.975, 3) =
// 3.1824, so ± 2.0542 (the trials' min–max, 1 to 4, fails).
func TestBandsAreTheMeansInterval(t *testing.T) {
	cps := [][]float64{{1}, {2}, {3}, {4}}
	f := build(t, Options{Kind: "gap-vs-balls", Bands: true, LinearY: true}, series("one-choice", nil, 10, 100, []float64{1, 2, 3, 4}, cps))
	p := f.Lines[0].Points[0]
	if p.Y != 2.5 || math.Abs(p.Hi-p.Y-2.0542) > 1e-4 || math.Abs(p.Y-p.Lo-2.0542) > 1e-4 {
		t.Errorf("point %+v, want 2.5 ± 2.0542", p)
	}
}

// The default y axis of a gap plot is logarithmic when the values span a
// decade (make run: one-choice ~400, two-choice 2.5), linear when they do
// not, when a value is not positive, or under --linear-y.
func TestAutoLogY(t *testing.T) {
	at := func(gaps ...float64) []Series {
		var ss []Series
		for i, g := range gaps {
			ss = append(ss, series("d-choice", map[string]any{"d": i + 1}, 100, 1e4, []float64{g, g}, [][]float64{{g}, {g}}))
		}
		return ss
	}
	for _, c := range []struct {
		gaps   []float64
		linear bool
		want   bool
	}{
		{[]float64{400, 2.5}, false, true},
		{[]float64{30, 100}, false, false},
		{[]float64{0, 100}, false, false},
		{[]float64{400, 2.5}, true, false},
	} {
		f := build(t, Options{Kind: "gap-vs-balls", LinearY: c.linear}, at(c.gaps...)...)
		if f.LogY != c.want {
			t.Errorf("gaps %v, --linear-y %v: log y %v, want %v", c.gaps, c.linear, f.LogY, c.want)
		}
	}
}

func TestCountText(t *testing.T) {
	for n, want := range map[uint64]string{
		1000: "1000", 9999: "9999", 10000: "10^4", 1e8: "10^8", 17179869184: "2^34", 65536: "2^16",
		1500000: "1.5·10^6", 17e9: "1.7·10^10", 12345678: "≈1.23·10^7", 99960000: "≈1·10^8",
	} {
		if got := CountText(n); got != want {
			t.Errorf("CountText(%d) = %q, want %q", n, got, want)
		}
	}
	if got := TeXText("n=10^4, m=1.5·10^6"); got != `n=10$^{4}$, m=1.5$\cdot$10$^{6}$` {
		t.Errorf("TeXText: %q", got)
	}
}

// The SVG holds no <text> (no font a viewer may lack or swap), and its
// glyph outlines are where gonum lays the text out: the figure drawn
// through outlineText onto an image matches the one drawn with the font
// to within antialiasing (glyphs upside down miss 4200 of 9748 dark
// pixels, advanced 2% too far 619; as written, 6).
func TestSVGTextIsOutlines(t *testing.T) {
	cps := [][]float64{{1, 2, 3}, {2, 3, 3}}
	f := build(t, Options{Kind: "gap-vs-balls"}, series("two-choice", map[string]any{"d": 2}, 1e4, 1.5e6, []float64{3, 3}, cps))
	var svg bytes.Buffer
	wt, _ := f.WriterTo("svg")
	if _, err := wt.WriteTo(&svg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg.String(), "<text") || strings.Count(svg.String(), "<path") < 20 {
		t.Errorf("svg: %d <text>, %d <path>", strings.Count(svg.String(), "<text"), strings.Count(svg.String(), "<path"))
	}
	l, err := f.layout()
	if err != nil {
		t.Fatal(err)
	}
	draw1 := func(outline bool) image.Image {
		c := vgimg.PngCanvas{Canvas: vgimg.New(figWidth, l.height)}
		if outline {
			l.draw(draw.New(&outlineText{CanvasSizer: c}))
		} else {
			l.draw(draw.New(c))
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	a, b := draw1(false), draw1(true)
	// A dark pixel of one with no dark pixel within one pixel in the other
	// is a miss: antialiasing moves edges by less.
	dark := func(img image.Image, x, y int) bool {
		r, _, _, _ := img.At(x, y).RGBA()
		return r < 0x8000
	}
	near := func(img image.Image, x, y int) bool {
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if dark(img, x+dx, y+dy) {
					return true
				}
			}
		}
		return false
	}
	misses, total := 0, 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			for _, pair := range [][2]image.Image{{a, b}, {b, a}} {
				if dark(pair[0], x, y) {
					total++
					if !near(pair[1], x, y) {
						misses++
					}
				}
			}
		}
	}
	t.Logf("outlines against text: %d of %d dark pixels have no dark pixel within 1 px in the other", misses, total)
	if misses > total/100 {
		t.Errorf("outlined text is not where the font's is: %d of %d dark pixels missed", misses, total)
	}
}

// An outlined string spans the width gonum measures for it, kerning
// included ("AVAWAY" is 6.5 points narrower at 12 points than its glyphs'
// advances), and stands on its baseline.
func TestOutlinesKernedAsMeasured(t *testing.T) {
	sty := gplot.New().Title.TextStyle
	face := sty.Handler.Cache().Lookup(sty.Font, sty.Font.Size)
	rec := &recorder{CanvasSizer: vgimg.New(100, 100)}
	c := &outlineText{CanvasSizer: rec}
	c.FillString(face, vg.Point{X: 10, Y: 50}, "AVAWAY")
	lo, hi := vg.Point{X: 1e9, Y: 1e9}, vg.Point{X: -1e9, Y: -1e9}
	for _, comp := range rec.path {
		if comp.Type == vg.CloseComp {
			continue
		}
		lo.X, lo.Y = min(lo.X, comp.Pos.X), min(lo.Y, comp.Pos.Y)
		hi.X, hi.Y = max(hi.X, comp.Pos.X), max(hi.Y, comp.Pos.Y)
	}
	w := face.Width("AVAWAY")
	if math.Abs(float64(hi.X-(10+w))) > 0.5 || lo.X < 9.5 || math.Abs(float64(lo.Y-50)) > 0.5 || hi.Y < 55 {
		t.Errorf("AVAWAY outlined over x [%v, %v], y [%v, %v]; gonum measures it %v wide from x = 10 on baseline y = 50", lo.X, hi.X, lo.Y, hi.Y, w)
	}
}

// recorder keeps the last path filled.
type recorder struct {
	vg.CanvasSizer
	path vg.Path
}

func (r *recorder) Fill(p vg.Path) { r.path = p }

// No function of the package is over 80 lines.
func TestFunctionsShort(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 80 {
					t.Errorf("%s: %s is %d lines", name, fn.Name.Name, n)
				}
			}
		}
	}
}

// A legend of long labels goes under the axes (the page grows), so that it
// does not squeeze them; a short one stays beside them on a 5-inch page.
func TestWideLegendGoesBelow(t *testing.T) {
	var long, short []Series
	for i := range 10 {
		params := map[string]any{"graph": fmt.Sprintf("torus:%d,%d", 32*(i+1), 128+i), "strategy": "greedy"}
		if i%2 == 1 {
			params["strategy"], params["haar-scale"] = "haar", "congestion"
		}
		long = append(long, series("graphical", params, 1e4, 1e6, []float64{3, 3}, [][]float64{{1}, {2}}))
		short = append(short, series("d-choice", map[string]any{"d": i + 1}, 1e4, 1e6, []float64{3, 3}, [][]float64{{1}, {2}}))
	}
	for _, c := range []struct {
		ss    []Series
		below bool
	}{{long, true}, {short, false}} {
		l, err := build(t, Options{Kind: "gap-vs-balls"}, c.ss...).layout()
		if err != nil {
			t.Fatal(err)
		}
		if l.below != c.below || (l.height > figHeight) != c.below {
			t.Errorf("legend %v wide: below %v, page %v high; want below %v", l.legendW, l.below, l.height, c.below)
		}
	}
}

// gap-vs-bins over several n (log x): one line per process, its points at
// the bins in increasing order, whatever order the grid listed them in.
func TestGapVsBinsSeveralN(t *testing.T) {
	var ss []Series
	for _, n := range []uint64{1e4, 100, 1e3} {
		ss = append(ss, series("one-choice", nil, n, 100*n, []float64{3, 5}, nil))
		ss = append(ss, series("two-choice", map[string]any{"d": 2}, n, 100*n, []float64{2, 2}, nil))
	}
	f := build(t, Options{Kind: "gap-vs-bins"}, ss...)
	if !f.LogX || len(f.Lines) != 2 || f.Caption != "m/n=100, 2 trials each" {
		t.Fatalf("log x %v, %d lines, caption %q", f.LogX, len(f.Lines), f.Caption)
	}
	for _, l := range f.Lines {
		var xs []float64
		for _, p := range l.Points {
			xs = append(xs, p.X)
		}
		if !slices.Equal(xs, []float64{100, 1e3, 1e4}) {
			t.Errorf("%s: x %v", l.Label, xs)
		}
	}
}

// Real gaps (weighted balls) are binned to a round width with at most 40
// bars, each centred on a multiple of it; integer gaps keep a bar each.
func TestGapBins(t *testing.T) {
	w, key := gapBins([]float64{2, 3, 7, 95})
	if w != 1 || key(7) != 7 {
		t.Errorf("integer gaps: width %v, 7 → %v", w, key(7))
	}
	var real []float64
	for i := range 200 {
		real = append(real, gapKey(5.13+float64(i)*0.339))
	}
	w, key = gapBins(real)
	if w != 2 || key(5.13) != 6 || key(72.2) != 72 || key(6.99) != 6 || key(7.01) != 8 {
		t.Errorf("real gaps 5.13–72.6: width %v, 5.13 → %v, 72.2 → %v, 6.99 → %v, 7.01 → %v", w, key(5.13), key(72.2), key(6.99), key(7.01))
	}
}
