package plot

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/sweep"
)

// CountText writes a count as a legend or caption does, short enough to
// read at a glance: in full below 10^4, else 10^8, 2^34 (a power of two
// that is not a power of ten), 1.5·10^6, and past three significant digits
// ≈1.23·10^7.
func CountText(n uint64) string {
	if n < 10000 {
		return strconv.FormatUint(n, 10)
	}
	digits := strconv.FormatUint(n, 10)
	exp := len(digits) - 1
	sig := strings.TrimRight(digits, "0")
	switch {
	case sig == "1":
		return fmt.Sprintf("10^%d", exp)
	case n&(n-1) == 0:
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(n))
	case len(sig) <= 3:
		mant := sig[:1]
		if len(sig) > 1 {
			mant += "." + sig[1:]
		}
		return fmt.Sprintf("%s·10^%d", mant, exp)
	}
	r := math.Round(float64(n) / math.Pow(10, float64(exp-2))) // 100 … 1000
	if r == 1000 {
		r, exp = 100, exp+1
	}
	return fmt.Sprintf("≈%s·10^%d", strconv.FormatFloat(r/100, 'f', -1, 64), exp)
}

// labelPart is one piece of a series' name: the process, one parameter,
// n, m or m/n, keyed so that the same piece of two series is compared.
type labelPart struct{ key, text string }

// pointParts are a grid point's pieces: process, each parameter (sorted),
// n and m.
func pointParts(gp sweep.Point) []labelPart {
	parts := []labelPart{{"process", gp.Process}}
	for _, k := range slices.Sorted(maps.Keys(gp.Params)) {
		parts = append(parts, labelPart{k, fmt.Sprintf("%s=%v", k, gp.Params[k])})
	}
	return append(parts, labelPart{"n", "n=" + CountText(gp.Bins)}, labelPart{"m", "m=" + CountText(gp.Balls)})
}

// shorten names each series by the pieces that tell it from the others,
// and returns the pieces every series shares, for the caption under the
// title: a legend of "two-choice d=2" and "one-choice" over "n=10^4,
// m=10^8" rather than both in full. A series left with no piece of its
// own (one series, or all equal) keeps its process and parameters.
func shorten(parts [][]labelPart) (labels []string, shared []string) {
	var keys []string
	for _, ps := range parts {
		for _, p := range ps {
			if !slices.Contains(keys, p.key) {
				keys = append(keys, p.key)
			}
		}
	}
	text := func(ps []labelPart, key string) string {
		if i := slices.IndexFunc(ps, func(p labelPart) bool { return p.key == key }); i >= 0 {
			return ps[i].text
		}
		return ""
	}
	common := map[string]bool{}
	for _, k := range keys {
		t := text(parts[0], k)
		common[k] = t != ""
		for _, ps := range parts[1:] {
			common[k] = common[k] && text(ps, k) == t
		}
	}
	own := func(ps []labelPart, pick func(labelPart) bool) string {
		var out []string
		for _, p := range ps {
			if pick(p) && p.text != "" {
				out = append(out, p.text)
			}
		}
		return strings.Join(out, " ")
	}
	for _, ps := range parts {
		labels = append(labels, own(ps, func(p labelPart) bool { return !common[p.key] }))
	}
	// A legend entry needs a name: with nothing varying, the process and its
	// parameters name it and the caption keeps the sizes.
	whole := slices.Contains(labels, "")
	for _, k := range keys {
		if common[k] && !(whole && k != "n" && k != "m" && k != "m/n") {
			shared = append(shared, text(parts[0], k))
		}
	}
	if whole {
		for i, ps := range parts {
			labels[i] = own(ps, func(p labelPart) bool { return p.key != "n" && p.key != "m" && p.key != "m/n" })
		}
	}
	return labels, shared
}

// trialsText is how many trials each series holds: "10 trials each",
// "one trial", or "5–20 trials".
func trialsText(series []Series) string {
	lo, hi := math.MaxInt, 0
	for _, s := range series {
		lo, hi = min(lo, len(s.Results)), max(hi, len(s.Results))
	}
	switch {
	case hi == 1:
		return "one trial each"
	case lo == hi:
		return fmt.Sprintf("%d trials each", lo)
	}
	return fmt.Sprintf("%d–%d trials", lo, hi)
}

// oneTrial is whether some series has a single trial (no interval).
func oneTrial(series []Series) bool {
	return slices.ContainsFunc(series, func(s Series) bool { return len(s.Results) < 2 })
}

// nameSeries sets the lines' labels and the caption from the series: the
// shortened names when every series carries its default label
// (SeriesLabel, or ""), else the labels as given; the caption ends with
// the trials.
func nameSeries(f *Figure, series []Series) []string {
	labels := make([]string, len(series))
	var shared []string
	custom := slices.ContainsFunc(series, func(s Series) bool { return s.Label != "" && s.Label != SeriesLabel(s.Point) })
	if custom {
		for i, s := range series {
			labels[i] = s.Label
		}
	} else {
		parts := make([][]labelPart, len(series))
		for i, s := range series {
			parts[i] = pointParts(s.Point)
		}
		labels, shared = shorten(parts)
	}
	f.Caption = strings.Join(append(shared, trialsText(series)), ", ")
	return labels
}
