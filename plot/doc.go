// Package plot draws a sweep's or a run's results as balloc plot and run
// --plot do: the gap against the balls, the bins or a parameter, the
// distribution of the gap, or the load histogram (Kinds), with 95%
// intervals of the mean (error bars, or bands under Bands) and the fluid
// limit where balloc has one. A figure is data first (Figure: labelled
// lines of points, a caption of what every series shares, legend notes),
// then written as a PNG or SVG image (gonum/plot; the SVG's text as glyph
// outlines, so no viewer needs the font) or a standalone pgfplots .tex
// file listing the same coordinates (Figure.WriterTo). Gap plots take a
// log y axis by themselves when their values span a decade (Build).
//
// A Go program plots a sweep folder without the command:
//
//	sd, err := sweep.ReadFolder("out/two-choice", "plot", nil)
//	...
//	var series []plot.Series
//	for i, rs := range sd.ByPoint() {
//		gp := sd.Manifest.Grid[i]
//		series = append(series, plot.Series{Label: plot.SeriesLabel(gp), Results: rs, Point: gp})
//	}
//	o := plot.Options{Kind: "gap-vs-bins", FlagKind: "kind", FlagX: "x", FlagY: "y"}
//	if err := o.Check(); err != nil { ... }
//	fig, note, err := plot.Build(o, series, false)
//	wt, err := fig.WriterTo("svg")
//	_, err = wt.WriteTo(file)
package plot
