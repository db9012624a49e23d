package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/plot"
)

// paramSweep: two processes taking g, two n, three g values.
const paramSweep = `processes = ["g-adv-comp", "g-myopic-comp"]
bins      = [20, 40]
balls_per_bin = [10]
trials    = 5
seed      = 3
checkpoints = 3
[params]
g = [2, 0, 1]
`

// mixedSweep: g and sigma vary, each for its own process.
const mixedSweep = `processes = ["g-adv-comp", "sigma-noisy-load"]
bins      = [20]
balls     = [200]
trials    = 3
[params]
g     = [0, 1]
sigma = [1, 2]
`

func makeSweep(t *testing.T, toml string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, toml)
	sw := filepath.Join(dir, "s")
	if code, _, errs := run(t, "sweep", file, "--out", sw, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	return sw
}

// sweepFigure builds the plot.Figure that plot draws for the sweep.
func sweepFigure(t *testing.T, sw string, o plot.Options) *plot.Figure {
	t.Helper()
	sd, err := sweep.ReadFolder(sw, "plot", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.CheckGrid(sd.Manifest.Grid, new([]string)); err != nil {
		t.Fatal(err)
	}
	var series []plot.Series
	for i, rs := range sd.ByPoint() {
		series = append(series, plot.Series{Label: plot.SeriesLabel(sd.Manifest.Grid[i]), Results: rs, Point: sd.Manifest.Grid[i]})
	}
	f, err := plot.NewFigure(o, series)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var texCoord = regexp.MustCompile(`^  \(([^,]+),([^)]+)\)(?: \+- \(0,([^)]+)\))?$`)

// texSeries reads back the \addplot coordinates and legend entries of a .tex.
func texSeries(t *testing.T, path string) (labels []string, pts [][]plot.Point) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: coordinate %q: %v", path, s, err)
		}
		return x
	}
	skip := false // in a "forget plot" (a band or a theory curve)
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, `\addplot[`):
			if skip = strings.Contains(line, "forget plot"); !skip {
				pts = append(pts, nil)
			}
		case strings.HasPrefix(line, `\addlegendentry{`):
			labels = append(labels, strings.TrimSuffix(strings.TrimPrefix(line, `\addlegendentry{`), "}"))
		case !skip:
			if m := texCoord.FindStringSubmatch(line); m != nil {
				p := plot.Point{X: num(m[1]), Y: num(m[2])}
				if m[3] != "" {
					p.Err = num(m[3])
				}
				pts[len(pts)-1] = append(pts[len(pts)-1], p)
			}
		}
	}
	return labels, pts
}

// The .tex lists exactly the coordinates the .png draws, and they are the
// means of the trials in results.jsonl.
func TestPlotTexCoordinatesEqualPlottedData(t *testing.T) {
	sw := makeSweep(t, paramSweep)
	for _, o := range []plot.Options{
		{Kind: "gap-vs-param", X: "g", Theory: true},
		{Kind: "gap-vs-param", X: "bins", Y: "max-gap"},
		{Kind: "gap-vs-balls", Bands: true},
		{Kind: "gap-vs-bins"},
		{Kind: "gap-distribution"},
		{Kind: "load-histogram"},
	} {
		out := filepath.Join(t.TempDir(), "f.tex")
		args := []string{"plot", sw, "--kind", o.Kind, "--out", out}
		if o.X != "" {
			args = append(args, "--x", o.X)
		}
		if o.Y != "" {
			args = append(args, "--y", o.Y)
		}
		if o.Theory {
			args = append(args, "--theory")
		}
		if o.Bands {
			args = append(args, "--bands")
		}
		if code, _, errs := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		fig := sweepFigure(t, sw, o)
		// Theory lines are drawn with "forget plot": no legend entry of
		// their own; the legend ends with the figure's notes.
		var want []plot.Line
		for _, l := range fig.Lines {
			if !l.Theory {
				want = append(want, l)
			}
		}
		labels, pts := texSeries(t, out)
		if len(pts) != len(want) || len(labels) != len(want)+len(fig.Notes) {
			t.Fatalf("%s: %d plots, %d legend entries in the .tex; the figure has %d series and %d notes", o.Kind, len(pts), len(labels), len(want), len(fig.Notes))
		}
		for i, s := range want {
			if labels[i] != plot.TeXText(s.Label) {
				t.Errorf("%s: legend %d %q, want %q", o.Kind, i, labels[i], plot.TeXText(s.Label))
			}
			if len(pts[i]) != len(s.Points) {
				t.Fatalf("%s %s: %d coordinates in the .tex, %d plotted", o.Kind, s.Label, len(pts[i]), len(s.Points))
			}
			for j, p := range s.Points {
				if got := pts[i][j]; got.X != p.X || got.Y != p.Y || got.Err != p.Err {
					t.Errorf("%s %s point %d: .tex (%v,%v ± %v), plotted (%v,%v ± %v)", o.Kind, s.Label, j, got.X, got.Y, got.Err, p.X, p.Y, p.Err)
				}
			}
		}
	}

	// One coordinate from the results themselves: g-myopic-comp, n = 40, g = 1.
	recs, _, _, err := sweep.ReadResults(filepath.Join(sw, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var gaps []float64
	for _, r := range recs {
		if r.Process == "g-myopic-comp" && r.Bins == 40 && r.Params["g"] == 1.0 {
			gaps = append(gaps, r.Gap)
		}
	}
	if len(gaps) != 5 {
		t.Fatalf("%d trials of g-myopic-comp g=1 n=40, want 5", len(gaps))
	}
	mean, half := stats.MeanCI(gaps)
	out := filepath.Join(t.TempDir(), "p.tex")
	if code, _, errs := run(t, "plot", sw, "--kind", "gap-vs-param", "--x", "g", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	labels, pts := texSeries(t, out)
	k := slices.IndexFunc(labels, func(l string) bool { return l == "g-myopic-comp n=40" })
	if k < 0 {
		t.Fatalf("no g-myopic-comp n=40 series in %q", labels)
	}
	if p := pts[k][1]; p.X != 1 || p.Y != mean || p.Err != half {
		t.Errorf("g-myopic-comp n=40 at g=1: .tex (%v,%v ± %v), results give (1,%v ± %v)", p.X, p.Y, p.Err, mean, half)
	}
}

// gap-vs-param picks the one varying parameter, sorts x, and draws one
// line per process and n; --x bins makes one per process and g.
func TestGapVsParamPicksXAndSeries(t *testing.T) {
	sw := makeSweep(t, paramSweep)
	o := plot.Options{Kind: "gap-vs-param"}
	f := sweepFigure(t, sw, o)
	var labels []string
	for _, s := range f.Lines {
		labels = append(labels, s.Label)
		if xs := []float64{s.Points[0].X, s.Points[1].X, s.Points[2].X}; len(s.Points) != 3 || !slices.Equal(xs, []float64{0, 1, 2}) {
			t.Errorf("%s: x %v, want g = 0, 1, 2", s.Label, xs)
		}
	}
	want := []string{"g-adv-comp adversary=greedy-reverse n=20", "g-adv-comp adversary=greedy-reverse n=40",
		"g-myopic-comp n=20", "g-myopic-comp n=40"}
	if f.XLabel != "g" || !slices.Equal(labels, want) {
		t.Errorf("x %q, series %q; want g and %q", f.XLabel, labels, want)
	}

	f = sweepFigure(t, sw, plot.Options{Kind: "gap-vs-param", X: "bins"})
	if len(f.Lines) != 6 || f.XLabel != "bins n" {
		t.Fatalf("--x bins: %d series, x %q; want 6 (2 processes × 3 g) and bins", len(f.Lines), f.XLabel)
	}
	for _, s := range f.Lines {
		if len(s.Points) != 2 || s.Points[0].X != 20 || s.Points[1].X != 40 || !strings.Contains(s.Label, "g=") {
			t.Errorf("--x bins: %s: %v", s.Label, s.Points)
		}
	}

	// Two parameters vary: name one; the points without it are said to be left out.
	mixed := makeSweep(t, mixedSweep)
	png := filepath.Join(t.TempDir(), "m.png")
	refused(t, "--x: the grid varies g, sigma; name the one for the x axis", "plot", mixed, "--kind", "gap-vs-param", "--out", png)
	code, out, errs := run(t, "plot", mixed, "--kind", "gap-vs-param", "--x", "sigma", "--out", png)
	if code != 0 || out != png+"\n" || errs != "balloc: plot: gap-vs-param leaves out g-adv-comp (no sigma)\n" {
		t.Errorf("--x sigma: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	refused(t, "--x adversary: its value greedy-reverse at g-adv-comp is not a number", "plot", mixed, "--kind", "gap-vs-param", "--x", "adversary", "--out", png)
	refused(t, "--x nope: no grid point has it", "plot", mixed, "--kind", "gap-vs-param", "--x", "nope", "--out", png)
}

// A log axis refuses data that is not positive, in one line, before
// anything is drawn; where the grid decides it, before any trial is read.
func TestPlotLogAxesRefuseNonPositive(t *testing.T) {
	sw := makeSweep(t, paramSweep)
	png := filepath.Join(t.TempDir(), "l.png")
	refused(t, "--log-x: g = 0 at g-adv-comp", "plot", sw, "--kind", "gap-vs-param", "--log-x", "--out", png)
	refused(t, "--log-x: --kind load-histogram has load − m/n on x", "plot", sw, "--kind", "load-histogram", "--log-x", "--out", png)
	refused(t, "--log-x: --kind gap-distribution has one bar group per gap value", "plot", sw, "--kind", "gap-distribution", "--log-x", "--out", png)
	refused(t, "--log-y: --kind gap-distribution draws bars from 0", "plot", sw, "--kind", "gap-distribution", "--log-y", "--out", png)
	// One bin: every gap is 0.
	one := makeSweep(t, "process = \"one-choice\"\nbins = [1]\nballs = [5]\ntrials = 2\ncheckpoints = 2\n")
	refused(t, "--log-y: one-choice has y = 0 at x = 2", "plot", one, "--kind", "gap-vs-balls", "--log-y", "--out", png)
	if _, err := os.Stat(png); !os.IsNotExist(err) {
		t.Errorf("a refused plot wrote %s", png)
	}
	if code, _, errs := run(t, "plot", sw, "--kind", "gap-vs-balls", "--log-x", "--bands", "--out", png); code != 0 {
		t.Errorf("gap-vs-balls --log-x --bands: exit %d %s", code, errs)
	}
}

func TestPlotBadFlagsOneLine(t *testing.T) {
	sw := makeSweep(t, paramSweep)
	png := filepath.Join(t.TempDir(), "b.png")
	refused(t, `--y "mean": want gap, max-gap or mean-queue`, "plot", sw, "--kind", "gap-vs-param", "--y", "mean", "--out", png)
	refused(t, "--y max-gap: only gap-vs-param and gap-vs-bins plot it", "plot", sw, "--kind", "gap-vs-balls", "--y", "max-gap", "--out", png)
	refused(t, "--x g: only --kind gap-vs-param takes a parameter for x", "plot", sw, "--kind", "gap-vs-bins", "--x", "g", "--out", png)
	refused(t, "--bands: --kind gap-distribution draws no confidence band", "plot", sw, "--kind", "gap-distribution", "--bands", "--out", png)
	refused(t, `--out "b.pdf": want a .png, .svg or .tex file`, "plot", sw, "--kind", "gap-distribution", "--out", "b.pdf")
	runArgs := []string{"run", "--process", "g-adv-comp", "--bins", "20", "--balls", "100", "--progress", "never"}
	refused(t, `--title "T": it titles --plot; add --plot FILE or leave out --title`, append(runArgs, "--g", "1", "--title", "T")...)
	refused(t, "--x: the grid varies adversary, g; name the one for the x axis",
		append(runArgs, "--g", "0,1", "--adversary", "greedy-reverse,random", "--plot", png, "--plot-kind", "gap-vs-param")...)
	refused(t, "--plot-kind gap-vs-param needs a parameter with two values or more", append(runArgs, "--g", "1", "--plot", png, "--plot-kind", "gap-vs-param")...)
}

// run --plot: --title titles it, gap-vs-param takes the listed parameter,
// and --theory draws the fluid limit beside the simulation.
func TestRunPlotTitleTheoryAndParam(t *testing.T) {
	dir := t.TempDir()
	tex := filepath.Join(dir, "h.tex")
	code, _, errs := run(t, "run", "--process", "two-choice,one-choice", "--bins", "100", "--balls", "1000", "--trials", "3", "--progress", "never",
		"--theory", "--plot", tex, "--plot-kind", "load-histogram", "--title", "Loads & gaps")
	if code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(tex)
	if !strings.Contains(string(b), `title={Loads \& gaps\\`) || strings.Count(string(b), "dashed, mark=none, forget plot") != 2 {
		t.Errorf("run --plot .tex: no title or not two fluid-limit curves:\n%s", b)
	}
	// The theory curves have no legend entry of their own (a note says what
	// the dashes are): the first is two-choice's, drawn after its line.
	var curve []plot.Point
	inTheory := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, `\addplot[`):
			if inTheory = strings.Contains(line, "forget plot") && curve == nil; inTheory {
				curve = []plot.Point{}
			}
		case inTheory && texCoord.MatchString(line):
			m := texCoord.FindStringSubmatch(line)
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			curve = append(curve, plot.Point{X: x, Y: y})
		}
	}
	if len(curve) == 0 {
		t.Fatalf("no two-choice fluid limit in\n%s", b)
	}
	prof := theory.FluidDChoice(2, 10)
	sum := 0.0
	for _, p := range curve {
		i := int(p.X + 10)
		if want := prof.At(i) - prof.At(i+1); p.Y != want {
			t.Errorf("fluid limit at load %d: %v, want s_i − s_{i+1} = %v", i, p.Y, want)
		}
		sum += p.Y
	}
	if sum < 0.999 || sum > 1.0001 {
		t.Errorf("fluid-limit fractions add up to %v", sum)
	}

	png := filepath.Join(dir, "p.png")
	code, out, errs := run(t, "run", "--process", "d-choice", "--d", "2,3,4", "--bins", "100", "--balls", "1000", "--trials", "2", "--progress", "never",
		"--theory", "--plot", png, "--plot-kind", "gap-vs-param")
	if code != 0 || !strings.Contains(out, "plot: "+png) {
		t.Fatalf("run --plot-kind gap-vs-param: exit %d %s", code, errs)
	}
}

// run --plot takes plot's axis flags: --log-y, --log-x, --bands, --x, --y
// reach the plot.Figure, and a combination the kind cannot draw, or one without
// --plot, is refused in one line before any trial runs.
func TestRunPlotLogAxesBandsAndX(t *testing.T) {
	dir := t.TempDir()
	runArgs := []string{"run", "--process", "g-adv-comp", "--g", "1,2,4,8", "--bins", "100", "--balls", "10000", "--trials", "3", "--progress", "never"}
	png := filepath.Join(dir, "x.png")
	code, out, errs := run(t, append(runArgs, "--plot", png, "--plot-kind", "gap-vs-param", "--log-y")...)
	if code != 0 || !strings.Contains(out, "plot: "+png) {
		t.Fatalf("run --plot-kind gap-vs-param --log-y: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("run --plot %s: no PNG (%v)", png, err)
	}
	tex := filepath.Join(dir, "x.tex")
	code, _, errs = run(t, append(runArgs, "--plot", tex, "--plot-kind", "gap-vs-param", "--x", "g", "--y", "max-gap", "--log-x", "--log-y")...)
	if code != 0 {
		t.Fatalf("run --plot .tex --x g --y max-gap --log-x --log-y: exit %d %s", code, errs)
	}
	b, _ := os.ReadFile(tex)
	for _, want := range []string{"xmode=log", "ymode=log", "xlabel={g}"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("run --plot .tex: no %s in\n%s", want, b)
		}
	}
	bad := filepath.Join(dir, "never.png")
	refused(t, "--log-y: --plot-kind gap-distribution draws bars from 0; leave out --log-y",
		append(runArgs, "--plot", bad, "--plot-kind", "gap-distribution", "--log-y")...)
	refused(t, "--bands: --plot-kind load-histogram draws no confidence band", append(runArgs, "--plot", bad, "--plot-kind", "load-histogram", "--bands")...)
	refused(t, "--x g: only --plot-kind gap-vs-param takes a parameter for x", append(runArgs, "--plot", bad, "--plot-kind", "gap-vs-bins", "--x", "g")...)
	refused(t, "--log-x: it shapes --plot; add --plot FILE or leave out --log-x", append(runArgs, "--log-x")...)
	refused(t, "--log-x: g = 0 at ", "run", "--process", "g-adv-comp", "--g", "0,1", "--bins", "10", "--balls", "100",
		"--progress", "never", "--plot", bad, "--plot-kind", "gap-vs-param", "--log-x")
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("a refused run --plot wrote %s", bad)
	}
}

// A log axis over one value (every bin at two loads, each half the bins)
// draws instead of looping over ticks from 10^MinInt: the range gonum
// widens by ±1 through 0 is kept positive (plot's TestLogTicksRefuseBadRanges
// checks the ticks).
func TestLogAxisOverOneValueDraws(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.png")
	if code, _, errs := run(t, "run", "--process", "two-choice", "--bins", "4", "--balls", "8", "--plot", out, "--plot-kind", "load-histogram", "--log-y"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no picture: %v", err)
	}
}

// run's --plot takes --linear-y as balloc plot does: refused without
// --plot and beside --log-y, each in one line, and drawn with --plot
// (plot's kinds_test checks that the axis stays linear).
func TestRunPlotLinearY(t *testing.T) {
	png := filepath.Join(t.TempDir(), "r.png")
	args := []string{"run", "--process", "one-choice,two-choice", "--bins", "100", "--balls", "1e5", "--checkpoints", "4", "--trials", "2", "--progress", "never"}
	refused(t, "--linear-y: it shapes --plot", append(args, "--linear-y")...)
	refused(t, "--linear-y: --log-y asks for the other", append(args, "--plot", png, "--log-y", "--linear-y")...)
	if code, _, errs := run(t, append(args, "--plot", png, "--linear-y")...); code != 0 {
		t.Fatalf("--plot --linear-y: exit %d %s", code, errs)
	}
	if _, err := os.Stat(png); err != nil {
		t.Error(err)
	}
}
