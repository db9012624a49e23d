package plot

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/report"
)

// Kinds are the plots balloc draws, by name.
var Kinds = []string{"gap-vs-balls", "gap-vs-bins", "gap-vs-param", "gap-distribution", "load-histogram"}

// Options is which figure to draw (Kind, one of Kinds) and how.
type Options struct {
	Kind, Title string
	LogX, LogY  bool
	LinearY     bool   // a linear y axis even where the gaps span a decade (see Build)
	Bands       bool   // shade the 95% interval of the mean around each line
	Theory      bool   // draw the fluid limit beside the simulation
	X           string // gap-vs-param: the parameter on the x axis ("" picks the one that varies)
	Y           string // gap, max-gap or mean-queue
	// The flags that set the kind, x and y, for messages (plot and run
	// --plot name the kind differently).
	FlagKind, FlagX, FlagY string
}

// CheckFile checks a plot's kind and file, named as the flags that set them.
func CheckFile(kindFlag, kind, outFlag, out string) error {
	if !slices.Contains(Kinds, kind) {
		return fmt.Errorf("--%s %q: want %s", kindFlag, kind, strings.Join(Kinds, ", "))
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".png", ".svg", ".tex":
	default:
		return fmt.Errorf("--%s %q: want a .png, .svg or .tex file", outFlag, out)
	}
	return nil
}

// check refuses options that the kind cannot honour, before any data is
// read or any trial run.
func (o *Options) Check() error {
	kindFlag := o.FlagKind
	switch o.Kind {
	case "gap-distribution":
		if o.LogX {
			return fmt.Errorf("--log-x: --%s gap-distribution has one bar group per gap value, no numeric x axis; leave out --log-x", kindFlag)
		}
		if o.LogY {
			return fmt.Errorf("--log-y: --%s gap-distribution draws bars from 0; leave out --log-y", kindFlag)
		}
	case "load-histogram":
		if o.LogX {
			return fmt.Errorf("--log-x: --%s load-histogram has load − m/n on x, which is negative below the mean; leave out --log-x", kindFlag)
		}
	}
	if o.LogY && o.LinearY {
		return fmt.Errorf("--linear-y: --log-y asks for the other; leave out one")
	}
	if o.Bands && (o.Kind == "gap-distribution" || o.Kind == "load-histogram") {
		return fmt.Errorf("--bands: --%s %s draws no confidence band; leave out --bands", kindFlag, o.Kind)
	}
	if o.X != "" && o.Kind != "gap-vs-param" {
		return fmt.Errorf("--%s %s: only --%s gap-vs-param takes a parameter for x", o.FlagX, o.X, kindFlag)
	}
	switch o.Y {
	case "", "gap":
	case "max-gap", "mean-queue":
		if o.Kind != "gap-vs-param" && o.Kind != "gap-vs-bins" {
			return fmt.Errorf("--%s %s: only gap-vs-param and gap-vs-bins plot it", o.FlagY, o.Y)
		}
		if o.Y == "mean-queue" && o.Theory {
			return fmt.Errorf("--theory: no theory line for --%s mean-queue yet (balloc run --theory prints the fixed point); leave out --theory", o.FlagY)
		}
	default:
		return fmt.Errorf("--%s %q: want gap, max-gap or mean-queue", o.FlagY, o.Y)
	}
	return nil
}

// checkGrid checks what the grid points decide before any trial is read or
// run: the x parameter of gap-vs-param (picked here when not named) and that
// a log x axis has only positive x. Points without the x parameter are left
// out of gap-vs-param, said in a note added to notes (printed once nothing
// more can fail before the work, so that a refusal stays one line).
func (o *Options) CheckGrid(points []sweep.Point, notes *[]string) error {
	if o.Kind != "gap-vs-param" {
		return nil
	}
	if o.X == "" {
		var varying []string
		for _, name := range xCandidates(points) {
			if distinctX(points, name) > 1 {
				varying = append(varying, name)
			}
		}
		// A parameter beats bins and balls; a single one is the pick.
		var params []string
		for _, v := range varying {
			if v != "bins" && v != "balls" {
				params = append(params, v)
			}
		}
		switch {
		case len(params) == 1:
			o.X = params[0]
		case len(params) == 0 && len(varying) == 1:
			o.X = varying[0]
		case len(varying) == 0:
			return fmt.Errorf("--%s gap-vs-param needs a parameter with two values or more; the grid varies none", o.FlagKind)
		default:
			if len(params) == 0 {
				params = varying
			}
			return fmt.Errorf("--%s: the grid varies %s; name the one for the x axis", o.FlagX, strings.Join(params, ", "))
		}
	}
	var without []string
	have := 0
	for _, gp := range points {
		v, ok, err := xValue(gp, o.X)
		if err != nil {
			return fmt.Errorf("%s: %v", o.xText(), err)
		}
		if !ok {
			if l := gp.Process; !slices.Contains(without, l) {
				without = append(without, l)
			}
			continue
		}
		have++
		if o.LogX && v <= 0 {
			return fmt.Errorf("--log-x: %s = %s at %s, and a log axis needs x > 0; leave out --log-x", o.X, report.Number(v), SeriesLabel(gp))
		}
	}
	if have == 0 {
		return fmt.Errorf("%s: no grid point has it (it has %s)", o.xText(), strings.Join(xCandidates(points), ", "))
	}
	if len(without) > 0 {
		*notes = append(*notes, fmt.Sprintf("balloc: plot: gap-vs-param leaves out %s (no %s)", strings.Join(without, ", "), o.X))
	}
	return nil
}

// xText names the x parameter as the user set it.
func (o *Options) xText() string {
	return fmt.Sprintf("--%s %s", o.FlagX, o.X)
}

// xCandidates is what gap-vs-param may put on x: the parameters of the
// grid's points, then bins and balls.
func xCandidates(points []sweep.Point) []string {
	var names []string
	for _, gp := range points {
		for k := range gp.Params {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	return append(names, "bins", "balls")
}

func distinctX(points []sweep.Point, name string) int {
	var seen []string
	for _, gp := range points {
		var s string
		switch name {
		case "bins":
			s = fmt.Sprint(gp.Bins)
		case "balls":
			s = fmt.Sprint(gp.Balls)
		default:
			v, ok := gp.Params[name]
			if !ok {
				continue
			}
			s = fmt.Sprint(v)
		}
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	return len(seen)
}

// xValue is the grid point's value of name as a number; ok is false when
// the point has no such parameter.
func xValue(gp sweep.Point, name string) (v float64, ok bool, err error) {
	switch name {
	case "bins":
		return float64(gp.Bins), true, nil
	case "balls":
		return float64(gp.Balls), true, nil
	}
	raw, ok := gp.Params[name]
	if !ok {
		return 0, false, nil
	}
	if b, isBool := raw.(bool); isBool {
		return map[bool]float64{false: 0, true: 1}[b], true, nil
	}
	text := fmt.Sprint(raw)
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return f, true, nil
	}
	if c, err := units.ParseCount(text); err == nil {
		return float64(c), true, nil
	}
	return 0, true, fmt.Errorf("its value %v at %s is not a number", raw, gp.Process)
}

// Series is one grid point's trials. Label names it in error messages and,
// when it is not SeriesLabel(Point) or "", in the legend as given; the
// default lets the figure shorten every series' name to what tells it
// from the others, the rest going into the caption.
type Series struct {
	Label   string
	Results []*result.Result
	Point   sweep.Point
}

// SeriesLabel names a grid point in a legend: process, parameters, n and m.
func SeriesLabel(gp sweep.Point) string {
	l := gp.Process
	if p := sweep.ParamsText(gp.Params); p != "" {
		l += " " + p
	}
	return fmt.Sprintf("%s, n=%s, m=%s", l, CountText(gp.Bins), CountText(gp.Balls))
}

// Build builds the figure of o.Kind from the series and checks it can be
// drawn: points that are not finite are dropped (said in note), and a log
// axis the data cannot take (a value ≤ 0) is an error, or, with
// linearFallback, drawn linear with note saying so. A gap plot (gap-vs-*)
// without LogY or LinearY gets a log y axis when its values span a factor
// of 10 or more and are all positive (autoLogY): one-choice's 400 and
// two-choice's 2.5 on one linear axis leave two-choice a flat line on the
// floor.
func Build(o Options, series []Series, linearFallback bool) (f *Figure, note string, err error) {
	f, err = NewFigure(o, series)
	if err != nil {
		return nil, "", err
	}
	if note, err = f.dropNonFinite(); err != nil {
		return nil, "", err
	}
	if strings.HasPrefix(o.Kind, "gap-vs-") && !o.LogY && !o.LinearY {
		f.LogY = f.autoLogY()
	}
	for {
		err := f.checkLog()
		if err == nil {
			break
		}
		var le *logAxisError
		if !linearFallback || !errors.As(err, &le) {
			return nil, "", err
		}
		if le.y {
			f.LogY = false
			note += fmt.Sprintf(" (drawn with a linear y axis: %s)", le.why)
		} else {
			f.LogX = false
			note += fmt.Sprintf(" (drawn with a linear x axis: %s)", le.why)
		}
	}
	return f, note, nil
}

// WriterTo is the Figure written in format: "png" or "svg" (an image drawn
// by gonum/plot), or "tex" (a standalone pgfplots file listing the same
// coordinates).
func (f *Figure) WriterTo(format string) (io.WriterTo, error) {
	if format == "tex" {
		return texWriter{f}, nil
	}
	return f.imageWriter(format)
}

// NewFigure builds the figure of o.Kind from the series, unchecked (Build
// checks it can be drawn).
func NewFigure(o Options, series []Series) (*Figure, error) {
	f := &Figure{LogX: o.LogX, LogY: o.LogY, Bands: o.Bands}
	var err error
	switch o.Kind {
	case "gap-vs-balls":
		err = figGapVsBalls(f, o, series)
	case "gap-vs-bins":
		f.LogX = true
		err = figGapVsX(f, o, series, "bins")
	case "gap-vs-param":
		err = figGapVsX(f, o, series, o.X)
	case "gap-distribution":
		err = figGapDistribution(f, series)
	case "load-histogram":
		err = figLoadHistogram(f, o, series)
	}
	if err != nil {
		return nil, err
	}
	if o.Title != "" {
		f.Title = o.Title
	}
	return f, nil
}

// fluidSpec is the spec of a grid point at another number of balls, for
// its fluid limit; ok is false where balloc has none.
func fluidAt(gp sweep.Point, balls uint64) (theory.Profile, bool) {
	for _, k := range []string{"arrival_rate", "delete_prob", "delete", "phases"} {
		if _, ok := gp.Params[k]; ok {
			return theory.Profile{}, false // balls leave: the static fluid limit is no reading of it
		}
	}
	spec, err := core.NewSpec(gp.Process, stringParams(gp.Process, gp.Params), core.Common{Bins: gp.Bins, Balls: balls, Trials: 1, Alpha: 1})
	if err != nil || spec.Dims() > 1 {
		return theory.Profile{}, false
	}
	prof, err := core.FluidOf(spec)
	return prof, err == nil
}

// fluidGap is the fluid limit's first-moment estimate of the gap after
// balls balls: the largest load i with n·s_i ≥ 1, less balls/n.
func fluidGap(gp sweep.Point, balls uint64) (float64, bool) {
	prof, ok := fluidAt(gp, balls)
	if !ok {
		return 0, false
	}
	th := result.CompareTheory(prof, gp.Bins, nil)
	return float64(th.FirstMomentMax) - float64(balls)/float64(gp.Bins), true
}

// stringParams turns a manifest's params back into the flag values the
// process takes (an alias such as two-choice records a d it fixes itself).
func stringParams(name string, m map[string]any) map[string]string {
	out := map[string]string{}
	proc, err := process.Lookup(name)
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
