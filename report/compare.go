package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
	"github.com/balloc/balloc/internal/stats"
)

// A reference file (summarize --compare) holds published, or any, values
// of a sweep's grid points:
//
//	source = "Los, Sauerwald, PODC'22, §12"   # optional, printed above the table
//	[[ref]]
//	process = "g-adv-comp"                    # required
//	bins    = 10_000                          # optional, like balls and params:
//	balls   = "1e7"                           # each one given must match
//	params  = { g = 1 }                       # a subset of the point's parameters
//	gap_distribution = { 4 = 74, 5 = 26 }     # % of trials by final gap
//	gap_mean     = 4.26                       # mean final gap
//	max_gap_mean = 8.36                       # mean max_gap
//	note = "..."                              # printed under the table
//
// Each [[ref]] must name exactly one grid point, and no point twice.

// maxRefFile bounds a reference file: a few lines per grid point.
const maxRefFile = 16 << 20

// zLimit and pLimit are the verdict's bounds: 3 standard errors, and the
// two-sided probability of being beyond them under a normal law.
const (
	zLimit = 3
	pLimit = 0.0027
)

// minExpected is the pooling rule of the χ² test: adjacent cells are merged,
// in order of gap, until each holds an expected count of at least 5.
const minExpected = 5

// Reference is a parsed reference file.
type Reference struct {
	path   string
	source string
	refs   []ref
}

// ref is one [[ref]] table.
type ref struct {
	n        int // 1-based position in the file
	process  string
	bins     uint64 // 0: any
	balls    uint64 // 0 with !hasBalls: any
	hasBalls bool
	params   map[string]any
	dist     []refCell // sorted by gap; nil: none
	mean     float64   // NaN: none
	maxMean  float64   // NaN: none
	note     string
}

// refCell is one published cell: the share, in %, of trials with this gap
// (or, for real gaps, in the bin starting there).
type refCell struct {
	gap, pct float64
}

var refKeys = []string{"process", "bins", "balls", "params", "gap_distribution", "gap_mean", "max_gap_mean", "note"}

// ReadReference reads and checks a reference file; every error is an
// *ArgError naming the file and, where it can, the [[ref]] and key.
func ReadReference(path string) (*Reference, error) {
	fail := func(format string, a ...any) error {
		return argError("compare", path, format, a...)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, argError("compare", path, "%v", errors.Unwrap(err))
	case st.IsDir():
		return nil, fail("a folder, not a reference file")
	case st.Size() > maxRefFile:
		return nil, fail("more than the 16 MiB a reference file may hold")
	}
	text, err := files.ReadCapped(path, maxRefFile)
	switch {
	case err != nil:
		return nil, fail("%v", errors.Unwrap(err))
	case len(text) > maxRefFile: // not a regular file, or one that grew
		return nil, fail("more than the 16 MiB a reference file may hold")
	}
	if err := sweep.CheckNesting(path, text); err != nil {
		return nil, &ArgError{Arg: "compare", Value: err.Error()}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(text), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, argError("compare", fmt.Sprintf("%s:%d", path, pe.Position.Line), "%s", pe.Message)
		}
		return nil, fail("%v", err)
	}
	rf := &Reference{path: path}
	for k, v := range raw {
		switch k {
		case "source":
			s, ok := v.(string)
			if !ok {
				return nil, fail("source: want a string")
			}
			rf.source = s
		case "ref":
			tables, ok := v.([]map[string]any)
			if !ok {
				return nil, fail("ref: want [[ref]] tables")
			}
			for i, t := range tables {
				r, err := parseRef(i+1, t)
				if err != nil {
					return nil, fail("[[ref]] %d: %v", i+1, err)
				}
				rf.refs = append(rf.refs, r)
			}
		default:
			return nil, fail("%s: not a reference setting (known: source, and [[ref]] tables of %s)", k, strings.Join(refKeys, ", "))
		}
	}
	if len(rf.refs) == 0 {
		return nil, fail("no [[ref]] tables: nothing to compare")
	}
	return rf, nil
}

// parseRef checks one [[ref]] table.
func parseRef(n int, t map[string]any) (ref, error) {
	r := ref{n: n, mean: math.NaN(), maxMean: math.NaN()}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range t {
			if !yield(k) {
				return
			}
		}
	}) {
		v := t[k]
		var err error
		switch k {
		case "process":
			s, ok := v.(string)
			if !ok || s == "" {
				return r, fmt.Errorf("process: want a process name")
			}
			if _, err := process.Lookup(s); err != nil {
				return r, fmt.Errorf("process: %q is not a process", s)
			}
			r.process = s
		case "bins":
			if r.bins, err = refCount(v); err == nil && r.bins == 0 {
				err = fmt.Errorf("want at least 1")
			}
		case "balls":
			r.balls, err = refCount(v)
			r.hasBalls = true
		case "params":
			m, ok := v.(map[string]any)
			if !ok || len(m) == 0 {
				return r, fmt.Errorf("params: want a table of parameter values, { g = 1 }")
			}
			r.params = m
		case "gap_distribution":
			r.dist, err = refDistribution(v)
		case "gap_mean":
			r.mean, err = refReal(v)
		case "max_gap_mean":
			r.maxMean, err = refReal(v)
		case "note":
			s, ok := v.(string)
			if !ok {
				return r, fmt.Errorf("note: want a string")
			}
			r.note = s
		default:
			return r, fmt.Errorf("%s: not a reference key (known: %s)", k, strings.Join(refKeys, ", "))
		}
		if err != nil {
			return r, fmt.Errorf("%s: %v", k, err)
		}
	}
	if r.process == "" {
		return r, fmt.Errorf("process: missing; each [[ref]] names its grid point's process")
	}
	if r.dist == nil && math.IsNaN(r.mean) && math.IsNaN(r.maxMean) {
		return r, fmt.Errorf("no value to compare: give gap_distribution, gap_mean or max_gap_mean")
	}
	return r, nil
}

// refCount reads a count: an integer, or a string such as "1e7" or "10^4".
func refCount(v any) (uint64, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("%d is negative", x)
		}
		return uint64(x), nil
	case float64:
		if x < 0 || x != math.Trunc(x) || x >= 1<<63 {
			return 0, fmt.Errorf("%v is not a count", x)
		}
		return uint64(x), nil
	case string:
		return units.ParseCount(x)
	}
	return 0, fmt.Errorf("want a count (10000, \"1e4\")")
}

// refReal reads a finite real number.
func refReal(v any) (float64, error) {
	var x float64
	switch y := v.(type) {
	case int64:
		x = float64(y)
	case float64:
		x = y
	default:
		return 0, fmt.Errorf("want a number")
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a finite number")
	}
	return x, nil
}

// refDistribution reads { gap = pct, ... }: gaps are numbers, shares in
// [0, 100] that add up to 100 within the rounding of published tables (95
// to 105).
func refDistribution(v any) ([]refCell, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, fmt.Errorf("want a table of gap = %% of trials, { 2 = 46, 3 = 54 }")
	}
	var cells []refCell
	sum := 0.0
	for k, pv := range m {
		gap, err := strconv.ParseFloat(k, 64)
		if err != nil || math.IsNaN(gap) || math.IsInf(gap, 0) {
			return nil, fmt.Errorf("%q: a gap must be a number", k)
		}
		pct, err := refReal(pv)
		if err != nil || pct < 0 || pct > 100 {
			return nil, fmt.Errorf("%s: want a share in %% from 0 to 100", k)
		}
		sum += pct
		cells = append(cells, refCell{gap, pct})
	}
	if sum < 95 || sum > 105 {
		return nil, fmt.Errorf("the shares add up to %v%%, not 100 (95 to 105 allows for rounding)", sum)
	}
	slices.SortFunc(cells, func(a, b refCell) int { return stats.Compare(a.gap, b.gap) })
	for i := 1; i < len(cells); i++ {
		if cells[i].gap == cells[i-1].gap {
			return nil, fmt.Errorf("gap %v is given twice", cells[i].gap)
		}
	}
	return cells, nil
}

// sameValue compares a reference parameter with a grid point's: numbers as
// numbers (a count string such as "1e4" too), anything else as text.
func sameValue(a, b any) bool {
	x, okx := asNumber(a)
	y, oky := asNumber(b)
	if okx && oky {
		return x == y
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, true
		}
		if n, err := units.ParseCount(x); err == nil {
			return float64(n), true
		}
	}
	return 0, false
}

// matches reports whether r names grid point gp.
func (r *ref) matches(gp sweep.Point) bool {
	if r.process != gp.Process || (r.bins != 0 && r.bins != gp.Bins) || (r.hasBalls && r.balls != gp.Balls) {
		return false
	}
	for k, v := range r.params {
		pv, ok := gp.Params[k]
		if !ok || !sameValue(v, pv) {
			return false
		}
	}
	return true
}

// describe names a reference as its file states it.
func (r *ref) describe() string {
	s := r.process
	if len(r.params) > 0 {
		s += " " + sweep.ParamsText(r.params)
	}
	if r.bins != 0 {
		s += " bins=" + units.FormatCount(r.bins)
	}
	if r.hasBalls {
		s += " balls=" + units.FormatCount(r.balls)
	}
	return s
}

// CompareRow is one compared cell: a statistic of one grid point.
type CompareRow struct {
	s         *Summary
	first     bool   // the point's first row
	statistic string // "gap %", "gap mean", "gap mean (from %)", "max_gap mean"
	sim, ref  string // as displayed
	simV      float64
	seV       float64
	refV      float64
	z         float64 // NaN: none
	chi2, p   float64 // NaN: none
	df        int
	verdict   string // "ok", "OUT", "–"
	noteID    int    // 0: none
}

// Compare matches the references to the summaries of the sweep in dir and
// computes each cell's test.
func (rf *Reference) Compare(dir string, sums []Summary) ([]CompareRow, error) {
	byPoint := make([]*ref, len(sums))
	for i := range rf.refs {
		r := &rf.refs[i]
		var hit []int
		for j := range sums {
			if r.matches(sums[j].Point) {
				hit = append(hit, j)
			}
		}
		switch {
		case len(hit) == 0:
			return nil, argError("compare", rf.path, "[[ref]] %d (%s) names no grid point of %s", r.n, r.describe(), dir)
		case len(hit) > 1:
			var names []string
			for _, j := range hit[:2] {
				names = append(names, sums[j].Point.Describe())
			}
			return nil, argError("compare", rf.path, "[[ref]] %d (%s) names %d grid points of %s (%s, ...); add bins, balls or params to name one",
				r.n, r.describe(), len(hit), dir, strings.Join(names, "; "))
		case byPoint[hit[0]] != nil:
			return nil, argError("compare", rf.path, "[[ref]] %d and %d both name %s", byPoint[hit[0]].n, r.n, sums[hit[0]].Point.Describe())
		}
		byPoint[hit[0]] = r
	}
	var rows []CompareRow
	notes := 0
	for i := range sums {
		s, r := &sums[i], byPoint[i]
		if r == nil {
			rows = append(rows, CompareRow{s: s, first: true, statistic: "gap %", sim: simCells(s), ref: "–", z: math.NaN(), chi2: math.NaN(), p: math.NaN(),
				simV: math.NaN(), seV: math.NaN(), refV: math.NaN(), verdict: "–"})
			continue
		}
		start := len(rows)
		if r.dist != nil {
			rows = append(rows, distRow(s, r))
			if math.IsNaN(r.mean) && s.Discrete {
				mean, total := 0.0, 0.0
				for _, c := range r.dist {
					mean, total = mean+c.gap*c.pct, total+c.pct
				}
				rows = append(rows, meanRow(s, "gap mean (from %)", s.Gaps, mean/total))
			}
		}
		if !math.IsNaN(r.mean) {
			rows = append(rows, meanRow(s, "gap mean", s.Gaps, r.mean))
		}
		if !math.IsNaN(r.maxMean) {
			rows = append(rows, meanRow(s, "max_gap mean", nil, r.maxMean))
		}
		rows[start].first = true
		if r.note != "" {
			notes++
			rows[start].noteID = notes
		}
	}
	return rows, nil
}

// simCells is a point's distribution as the table shows it.
func simCells(s *Summary) string {
	if s.Trials == 0 {
		return "–"
	}
	return cellsText(s.Cells, s.Trials)
}

// meanRow compares a point's mean gap (or, with xs nil, its mean max_gap)
// with a reference: z = (mean − ref)/(sd/√T).
func meanRow(s *Summary, statistic string, xs []float64, refV float64) CompareRow {
	row := CompareRow{s: s, statistic: statistic, refV: refV, ref: Number(refV), z: math.NaN(), chi2: math.NaN(), p: math.NaN(), verdict: "–",
		simV: math.NaN(), seV: math.NaN(), sim: "–"}
	if s.Trials == 0 {
		return row
	}
	mean := s.Mean
	if xs == nil {
		mean = s.MaxGapMean
	}
	row.simV, row.sim = mean, Number(mean)
	if s.Trials < 2 {
		return row // no standard error from one trial
	}
	sd := s.SD
	if xs == nil {
		sd = s.MaxGapSD
	}
	row.seV = sd / math.Sqrt(float64(s.Trials))
	row.sim = fmt.Sprintf("%s ± %.3g", Number(mean), stats.T975(s.Trials-1)*row.seV) // a 95% interval, as every table's ±
	switch {
	case row.seV > 0:
		row.z = (mean - refV) / row.seV
	case mean == refV:
		row.z = 0
	default:
		row.z = math.Copysign(math.Inf(1), mean-refV)
	}
	row.verdict = "ok"
	if math.Abs(row.z) > zLimit {
		row.verdict = "OUT"
	}
	return row
}

// distRow tests a point's gap distribution against a published one with
// Pearson's χ²: the cells are the gaps either gives (for real gaps, the
// reference's gaps start bins, a trial counting in the last one at or below
// its gap), the expected counts T·pct/Σpct, pooled (minExpected) in order of
// gap; df = cells − 1 after pooling.
func distRow(s *Summary, r *ref) CompareRow {
	row := CompareRow{s: s, statistic: "gap %", sim: simCells(s), simV: math.NaN(), seV: math.NaN(), refV: math.NaN(), z: math.NaN(),
		chi2: math.NaN(), p: math.NaN(), verdict: "–"}
	var parts []string
	total := 0.0
	for _, c := range r.dist {
		parts = append(parts, fmt.Sprintf("%s: %s%%", Number(c.gap), Number(c.pct)))
		total += c.pct
	}
	row.ref = strings.Join(parts, "  ")
	if s.Trials == 0 {
		return row
	}
	type cell struct{ gap, obs, exp float64 }
	var cells []cell
	at := func(gap float64) *cell {
		for i := range cells {
			if cells[i].gap == gap {
				return &cells[i]
			}
		}
		cells = append(cells, cell{gap: gap})
		return &cells[len(cells)-1]
	}
	for _, c := range r.dist {
		at(c.gap).exp += float64(s.Trials) * c.pct / total
	}
	for _, x := range s.Gaps {
		key := x
		if !s.Discrete {
			key = math.Inf(-1) // below every reference bin
			for _, c := range r.dist {
				if c.gap <= x {
					key = c.gap
				}
			}
		}
		at(key).obs++
	}
	slices.SortFunc(cells, func(a, b cell) int { return stats.Compare(a.gap, b.gap) })
	var pooled []cell
	var acc cell
	for _, c := range cells {
		acc.obs, acc.exp = acc.obs+c.obs, acc.exp+c.exp
		if acc.exp >= minExpected {
			pooled, acc = append(pooled, acc), cell{}
		}
	}
	if acc.obs > 0 || acc.exp > 0 {
		if len(pooled) == 0 {
			pooled = append(pooled, acc)
		} else {
			last := &pooled[len(pooled)-1]
			last.obs, last.exp = last.obs+acc.obs, last.exp+acc.exp
		}
	}
	row.df = len(pooled) - 1
	if row.df < 1 {
		row.verdict = "– (one cell after pooling)"
		return row
	}
	chi2 := 0.0
	for _, c := range pooled {
		chi2 += (c.obs - c.exp) * (c.obs - c.exp) / c.exp
	}
	row.chi2 = chi2
	row.p = 1 - distuv.ChiSquared{K: float64(row.df)}.CDF(chi2)
	row.verdict = "ok"
	if row.p < pLimit {
		row.verdict = "OUT"
	}
	return row
}

// testText is a row's test as the table shows it.
func (r *CompareRow) testText() string {
	switch {
	case !math.IsNaN(r.chi2):
		return fmt.Sprintf("χ² = %.3g (%d df), p = %.2g", r.chi2, r.df, r.p)
	case !math.IsNaN(r.z):
		return fmt.Sprintf("z = %+.2f", r.z)
	}
	return "–"
}

// WriteCompare writes the compared cells: a display table with the notes
// and the rule under it, or numbers (csv, jsonl).
func WriteCompare(rf *Reference, rows []CompareRow, format string, w io.Writer) error {
	switch format {
	case "csv":
		return compareCSV(rows, w)
	case "jsonl":
		return compareJSONL(rows, w)
	}
	if rf.source != "" {
		fmt.Fprintf(w, "reference: %s (%s)\n\n", rf.source, rf.path)
	}
	head := []string{"process", "params", "bins", "balls", "trials", "statistic", "simulated (mean ± 95% CI)", "reference", "test", "verdict"}
	var out [][]string
	out2 := 0
	for _, r := range rows {
		row := []string{"", "", "", "", ""}
		if r.first {
			row = []string{r.s.Point.Process, sweep.ParamsText(r.s.Point.Params), units.FormatCount(r.s.Point.Bins), units.FormatCount(r.s.Point.Balls),
				fmt.Sprintf("%d/%d", r.s.Trials, r.s.Point.Trials)}
		}
		verdict := r.verdict
		if r.noteID > 0 {
			verdict += fmt.Sprintf(" [%d]", r.noteID)
		}
		if r.verdict == "OUT" {
			out2++
		}
		out = append(out, append(row, r.statistic, r.sim, r.ref, r.testText(), verdict))
	}
	writeDisplay(head, out, format, "llrrrlllll", w)
	tested := 0
	for _, r := range rows {
		if r.verdict == "ok" || r.verdict == "OUT" {
			tested++
		}
	}
	fmt.Fprintf(w, "\n%d cells tested, %d OUT. Means: z = (mean − reference)/(sd/√T), OUT beyond %d standard errors. Distributions: Pearson χ², cells pooled in order of gap until each expects ≥ %d trials, OUT at p < %v.\n",
		tested, out2, zLimit, minExpected, pLimit)
	for _, r := range rows {
		if r.noteID > 0 {
			fmt.Fprintf(w, "[%d] %s: %s\n", r.noteID, r.s.Point.Describe(), noteOf(rf, r.s))
		}
	}
	return nil
}

// noteOf is the note of the reference that names s.
func noteOf(rf *Reference, s *Summary) string {
	for i := range rf.refs {
		if rf.refs[i].matches(s.Point) {
			return rf.refs[i].note
		}
	}
	return ""
}

// compareCSV writes one row per compared cell, the figures as numbers.
func compareCSV(rows []CompareRow, w io.Writer) error {
	sums := make([]Summary, 0, len(rows))
	for _, r := range rows {
		sums = append(sums, *r.s)
	}
	names := paramNames(sums)
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{"point", "process"}, names...), "bins", "balls", "trials", "statistic", "simulated", "se", "reference", "z", "chi2", "df", "p", "verdict"))
	for _, r := range rows {
		row := []string{strconv.Itoa(r.s.Index), r.s.Point.Process}
		for _, k := range names {
			v, ok := r.s.Point.Params[k]
			row = append(row, "")
			if ok {
				row[len(row)-1] = fmt.Sprint(v)
			}
		}
		df := ""
		if !math.IsNaN(r.chi2) {
			df = strconv.Itoa(r.df)
		}
		cw.Write(append(row, strconv.FormatUint(r.s.Point.Bins, 10), strconv.FormatUint(r.s.Point.Balls, 10), strconv.Itoa(r.s.Trials), r.statistic,
			num(r.simV), num(r.seV), num(r.refV), num(finite(r.z)), num(r.chi2), df, num(r.p), r.verdict))
	}
	cw.Flush()
	return cw.Error()
}

// finite maps ±Inf to NaN (no number a table can hold).
func finite(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.NaN()
	}
	return x
}

// compareJSONL writes one JSON object per compared cell.
func compareJSONL(rows []CompareRow, w io.Writer) error {
	for _, r := range rows {
		obj := map[string]any{"point": r.s.Index, "process": r.s.Point.Process, "bins": r.s.Point.Bins, "balls": r.s.Point.Balls,
			"trials": r.s.Trials, "statistic": r.statistic, "simulated": jnum(r.simV), "se": jnum(r.seV), "reference": jnum(r.refV),
			"z": jnum(r.z), "chi2": jnum(r.chi2), "p": jnum(r.p), "verdict": r.verdict}
		if !math.IsNaN(r.chi2) {
			obj["df"] = r.df
		}
		for k, v := range r.s.Point.Params {
			obj[k] = v // one field per parameter, as in summarize --format jsonl
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}
