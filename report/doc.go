// Package report reads a sweep folder's results and reports on them, as
// balloc summarize does: per grid point the trials, the mean gap with its
// 95% interval, the distribution of the gap, max_gap and balls/s (Read,
// Write); the simulation beside published values, with a z-score or χ² per
// cell (ReadReference, Reference.Compare, WriteCompare); and where, as n
// grows, the gaps of two sets of points cross (ParseCrossover,
// WriteCrossover). Tables come as an aligned table, Markdown or LaTeX, and
// the numbers as CSV or JSON Lines.
//
// A Go program summarizes a folder without the command:
//
//	sums, err := report.Read("out/two-choice", math.NaN(), nil)
//	if err != nil { ... }
//	err = report.Write(sums, "markdown", os.Stdout)
package report
