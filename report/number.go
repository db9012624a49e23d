package report

import (
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/stats"
)

// MeanCI returns the mean of xs and the half-width of its 95% confidence
// interval (Student t; 0 for a single value), as every table of balloc
// gives it (stats.MeanCI).
func MeanCI(xs []float64) (mean, half float64) { return stats.MeanCI(xs) }

// Number formats a figure for a table: integers in full (loads of 10^6 and
// more must not round), other values to 6 significant digits
// (result.Figure).
func Number(x float64) string { return result.Figure(x) }
