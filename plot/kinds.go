package plot

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/report"
)

// The legend's last lines say what the marks mean, once, rather than in
// every series' label.
const (
	noteCI        = "error bars: 95% CI of the mean"
	noteBand      = "shaded: 95% CI of the mean"
	noteNoCI      = "a single trial: no interval"
	noteGapTheory = "dashed: fluid-limit estimate"
	noteHistTheo  = "dashed: fluid limit s_i − s_(i+1)"
)

// maxTheoryCheckpoints bounds the fluid-limit solves of a gap-vs-balls curve.
const maxTheoryCheckpoints = 64

// meanNotes are the legend's notes on what a line and its interval are.
func meanNotes(f *Figure, series []Series, errorBars bool) {
	if !slices.ContainsFunc(series, func(s Series) bool { return len(s.Results) > 1 }) {
		f.Notes = append(f.Notes, Note{Text: "lines: one trial (no interval)"})
		return
	}
	f.Notes = append(f.Notes, Note{Text: "lines: mean over the trials"})
	switch {
	case oneTrial(series):
		f.Notes = append(f.Notes, Note{Text: noteNoCI})
	case f.Bands:
		f.Notes = append(f.Notes, Note{Text: noteBand})
		if errorBars {
			f.Notes = append(f.Notes, Note{Text: noteCI})
		}
	case errorBars:
		f.Notes = append(f.Notes, Note{Text: noteCI})
	}
}

// theoryNote adds the note on the dashed lines when the figure has one.
func theoryNote(f *Figure, text string) {
	if slices.ContainsFunc(f.Lines, func(l Line) bool { return l.Theory }) {
		f.Notes = append(f.Notes, Note{Text: text, Dashed: true})
	}
}

// gap-vs-balls: the mean gap over trials at each checkpoint, with the 95%
// interval of that mean as a band under --bands, one line per grid point;
// time in balls per bin, so that grid points of different n share the axis.
func figGapVsBalls(f *Figure, o Options, series []Series) error {
	f.Title = "Gap over time"
	f.XLabel = "balls per bin, t = balls thrown / n"
	f.YLabel = "gap = max load − balls/bins (balls)"
	labels := nameSeries(f, series)
	for k, s := range series {
		cps := len(s.Results[0].Checkpoints)
		if cps == 0 {
			return fmt.Errorf("--kind gap-vs-balls needs checkpoints: set checkpoints in the sweep (or --checkpoints)")
		}
		fs := Line{Label: labels[k], Style: k}
		for c := range cps {
			var gaps []float64
			for _, r := range s.Results {
				if c < len(r.Checkpoints) {
					gaps = append(gaps, r.Checkpoints[c].Gap)
				}
			}
			m, half := report.MeanCI(gaps)
			x := float64(s.Results[0].Checkpoints[c].Balls) / float64(s.Point.Bins)
			fs.Points = append(fs.Points, Point{X: x, Y: m, Lo: m - half, Hi: m + half})
		}
		f.Lines = append(f.Lines, fs)
		if o.Theory {
			gapTheoryOverTime(f, s, k)
		}
	}
	meanNotes(f, series, false)
	theoryNote(f, noteGapTheory)
	return nil
}

// gapTheoryOverTime adds the fluid limit's first-moment estimate of the gap
// at (at most maxTheoryCheckpoints of) the series' checkpoints.
func gapTheoryOverTime(f *Figure, s Series, k int) {
	cps := len(s.Results[0].Checkpoints)
	th := Line{Label: f.Lines[len(f.Lines)-1].Label + " fluid-limit estimate", Style: k, Theory: true}
	stride := max(1, (cps+maxTheoryCheckpoints-1)/maxTheoryCheckpoints)
	for c := 0; c < cps; c += stride {
		if c+stride >= cps {
			c = cps - 1
		}
		b := s.Results[0].Checkpoints[c].Balls
		gap, ok := fluidGap(s.Point, b)
		if !ok {
			break
		}
		th.Points = append(th.Points, Point{X: float64(b) / float64(s.Point.Bins), Y: gap})
	}
	if len(th.Points) > 0 {
		f.Lines = append(f.Lines, th)
	}
}

// family is the grid points of a gap-vs-bins or gap-vs-param line: equal
// in all but x.
type family struct {
	parts  []labelPart // process, other parameters, n, m or m/n
	points []Series
	xs     []float64
}

// families groups the series into lines against x, in the order each
// first appears.
func families(series []Series, x string) ([]*family, error) {
	var fams []*family
	byKey := map[string]*family{}
	for _, s := range series {
		gp := s.Point
		xv, ok, err := xValue(gp, x)
		if err != nil {
			return nil, fmt.Errorf("--x %s: %v", x, err)
		}
		if !ok {
			continue
		}
		parts := []labelPart{{"process", gp.Process}}
		for _, k := range slices.Sorted(maps.Keys(gp.Params)) {
			if k != x {
				parts = append(parts, labelPart{k, fmt.Sprintf("%s=%v", k, gp.Params[k])})
			}
		}
		// A supermarket point's balls are its events, set by time (or
		// events) and λ: its params say the length, and m/n would split a
		// line against λ into points.
		_, supermarket := gp.Params["arrival_rate"]
		perBin := labelPart{"m/n", "m/n=" + report.Number(float64(gp.Balls)/float64(gp.Bins))}
		if supermarket {
			perBin.text = ""
		}
		switch x {
		case "bins":
			parts = append(parts, perBin)
		case "balls":
			parts = append(parts, labelPart{"n", "n=" + CountText(gp.Bins)})
		default:
			parts = append(parts, labelPart{"n", "n=" + CountText(gp.Bins)}, perBin)
		}
		var key strings.Builder
		for _, p := range parts {
			key.WriteString(p.text + "|")
		}
		fam := byKey[key.String()]
		if fam == nil {
			fam = &family{parts: parts}
			byKey[key.String()] = fam
			fams = append(fams, fam)
		}
		fam.points = append(fam.points, s)
		fam.xs = append(fam.xs, xv)
	}
	if len(fams) == 0 {
		return nil, fmt.Errorf("--x %s: no grid point with results has it", x)
	}
	return fams, nil
}

// gapVsXTitles sets the title and axis labels of gap-vs-bins and
// gap-vs-param.
func gapVsXTitles(f *Figure, o Options, x string) {
	what := "Gap"
	f.YLabel = "gap at the end (balls)"
	switch o.Y {
	case "max-gap":
		f.YLabel = "largest gap over the run (balls)"
	case "mean-queue":
		f.YLabel, what = "mean queue length (time average after the warmup)", "Mean queue length"
	}
	f.Title, f.XLabel = what+" against "+x, x
	switch x {
	case "bins":
		f.Title, f.XLabel = what+" against the number of bins", "bins n"
	case "balls":
		f.XLabel = "balls m"
	}
}

// gap-vs-bins and gap-vs-param: the mean (final or largest) gap with its
// 95% interval against x, one line per family of grid points equal in all
// but x, with the fluid limit's first-moment estimate dashed under --theory.
func figGapVsX(f *Figure, o Options, series []Series, x string) error {
	gapVsXTitles(f, o, x)
	fams, err := families(series, x)
	if err != nil {
		return err
	}
	parts := make([][]labelPart, len(fams))
	var used []Series
	for i, fam := range fams {
		parts[i] = fam.parts
		used = append(used, fam.points...)
	}
	labels, shared := shorten(parts)
	f.Caption = strings.Join(append(shared, trialsText(used)), ", ")
	for k, fam := range fams {
		if err := familyLines(f, o, fam, labels[k], k); err != nil {
			return err
		}
	}
	meanNotes(f, used, true)
	theoryNote(f, noteGapTheory)
	return nil
}

// familyLines adds a family's line, sorted by x, and its fluid limit.
func familyLines(f *Figure, o Options, fam *family, label string, k int) error {
	order := make([]int, len(fam.xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return stats.Compare(fam.xs[a], fam.xs[b]) })
	fs := Line{Label: label, Style: k, Marks: true}
	th := Line{Label: label + " fluid-limit estimate", Style: k, Theory: true}
	for _, i := range order {
		s := fam.points[i]
		var ys []float64
		for _, r := range s.Results {
			switch {
			case o.Y == "max-gap":
				ys = append(ys, r.MaxGap)
			case o.Y == "mean-queue" && (r.Dynamic == nil || r.Dynamic.Model != "supermarket"):
				return fmt.Errorf("--%s mean-queue: %s is no supermarket run (no arrival_rate), so it has no queue length", o.FlagY, s.Label)
			case o.Y == "mean-queue":
				ys = append(ys, r.Dynamic.MeanQueue)
			default:
				ys = append(ys, r.Gap)
			}
		}
		m, half := report.MeanCI(ys)
		fs.Points = append(fs.Points, Point{X: fam.xs[i], Y: m, Err: half, Lo: m - half, Hi: m + half})
		if o.Theory && (o.Y == "" || o.Y == "gap") {
			if gap, ok := fluidGap(s.Point, s.Point.Balls); ok {
				th.Points = append(th.Points, Point{X: fam.xs[i], Y: gap})
			}
		}
	}
	f.Lines = append(f.Lines, fs)
	if len(th.Points) > 0 {
		f.Lines = append(f.Lines, th)
	}
	return nil
}

// gapKey is a gap as gap-distribution counts it: to 0.1 ball (a gap is an
// integer less m/n, so equal gaps of two trials are equal to far better).
func gapKey(g float64) float64 { return math.Round(g*10) / 10 }

// gap-distribution: for each grid point, the share of its trials ending
// at each gap, as bars on a numeric gap axis: a bar per gap value and
// series, the series side by side within one bar width, which is 1 for
// integer gaps (else the least distance between two gaps seen).
func figGapDistribution(f *Figure, series []Series) error {
	f.Title = "Distribution of the final gap over trials"
	f.XLabel = "gap at the end (balls)"
	f.YLabel = "trials (%)"
	f.Bars = true
	var values []float64
	for _, s := range series {
		for _, r := range s.Results {
			if v := gapKey(r.Gap); !slices.Contains(values, v) {
				values = append(values, v)
			}
		}
	}
	slices.Sort(values)
	var key func(float64) float64
	f.BarWidth, key = gapBins(values)
	labels := nameSeries(f, series)
	for k, s := range series {
		count := map[float64]int{}
		for _, r := range s.Results {
			count[key(r.Gap)]++
		}
		fs := Line{Label: labels[k], Style: k}
		for _, v := range slices.Sorted(maps.Keys(count)) {
			fs.Points = append(fs.Points, Point{X: v, Y: 100 * float64(count[v]) / float64(len(s.Results))})
		}
		f.Lines = append(f.Lines, fs)
	}
	note := "bars: % of the series' trials"
	if f.BarWidth > 1 || key(values[0]) != values[0] {
		note = fmt.Sprintf("bars: %% of trials, gap ± %s", report.Number(f.BarWidth/2))
	}
	f.Notes = append(f.Notes, Note{Text: note})
	return nil
}

// gapBins is the bar width and the bar of a gap. Integer gaps (and any
// whose values lie at most 60 bar widths apart) get a bar each, as wide as
// the least distance between two of them (at most 1). Gaps of weighted
// balls, real numbers, would be a thin bar per trial: they are binned to
// the smallest 1, 2 or 5 × 10^k that gives at most 40 bars, each centred
// on a multiple of its width.
func gapBins(values []float64) (width float64, key func(float64) float64) {
	width = 1
	for i := 1; i < len(values); i++ {
		width = min(width, values[i]-values[i-1])
	}
	span := values[len(values)-1] - values[0]
	if width >= 1 || span <= 60*width {
		return width, gapKey
	}
	for mag := math.Pow(10, math.Floor(math.Log10(span/40))); ; mag *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if w := m * mag; span/w <= 40 {
				return w, func(g float64) float64 { return math.Round(g/w) * w }
			}
		}
	}
}

// load-histogram: the mean fraction of bins at each load relative to the
// average, at the end, one line per grid point; under --theory the fluid
// limit's s_i − s_{i+1} at the same t beside it.
func figLoadHistogram(f *Figure, o Options, series []Series) error {
	f.Title = "Final load distribution"
	f.XLabel = "load − balls/bins (balls)"
	f.YLabel = "fraction of bins (mean over trials)"
	labels := nameSeries(f, series)
	for k, s := range series {
		frac := map[float64]float64{}
		for _, r := range s.Results {
			if len(r.Histogram) == 0 {
				return fmt.Errorf("--kind load-histogram needs load histograms; %s has none (random weights)", s.Label)
			}
			for _, l := range r.Histogram {
				frac[l.Load-r.Average] += float64(l.Count) / float64(r.Bins) / float64(len(s.Results))
			}
		}
		fs := Line{Label: labels[k], Style: k, Marks: true}
		for _, x := range slices.Sorted(maps.Keys(frac)) {
			fs.Points = append(fs.Points, Point{X: x, Y: frac[x]})
		}
		f.Lines = append(f.Lines, fs)
		if o.Theory {
			histTheory(f, s, k)
		}
	}
	f.Notes = append(f.Notes, Note{Text: "marks: mean over the trials"})
	theoryNote(f, noteHistTheo)
	return nil
}

// histTheory adds the fluid limit's fraction of bins at each load,
// s_i − s_{i+1}, where n times it is at least 0.01.
func histTheory(f *Figure, s Series, k int) {
	prof, ok := fluidAt(s.Point, s.Point.Balls)
	if !ok {
		return
	}
	t := float64(s.Point.Balls) / float64(s.Point.Bins)
	n := float64(s.Point.Bins)
	th := Line{Label: f.Lines[len(f.Lines)-1].Label + " fluid limit", Style: k, Theory: true}
	for i := max(0, prof.Base-1); i <= prof.Top(); i++ {
		if p := prof.At(i) - prof.At(i+1); n*p >= 0.01 {
			th.Points = append(th.Points, Point{X: float64(i) - t, Y: p})
		}
	}
	if len(th.Points) > 0 {
		f.Lines = append(f.Lines, th)
	}
}
