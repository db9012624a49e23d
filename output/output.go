package output

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
)

// Formats are the per-trial formats a Stream writes: a JSON array of the
// trials, JSON Lines of the trials (one object a trial, checkpoints
// nested: a sweep's results file), the tidy CSV, and the same tidy rows as
// JSON Lines (jsonl-tidy: one object per row, the CSV's columns as keys).
var Formats = []string{"json", "jsonl", "csv", "jsonl-tidy"}

// Stream writes results in one per-trial format. Each Write flushes, so
// the output holds whole records should the run be interrupted; Finish
// closes a JSON array.
type Stream struct {
	format string
	w      *bufio.Writer
	csv    *csv.Writer
	extras []*result.Kind // CSV, jsonl-tidy: the extra blocks with columns the run's processes report
	params []string       // CSV, jsonl-tidy: the parameters of the run's specs, a column each
	cols   []string       // jsonl-tidy: the keys, the CSV's columns
	count  int
}

// NewStream makes a Stream writing format (one of Formats) to w for the
// results of specs (a CSV's columns follow the kinds their processes
// report).
func NewStream(w io.Writer, format string, specs []*core.Spec) (*Stream, error) {
	if !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("output: format %q is not one of %s", format, strings.Join(Formats, ", "))
	}
	st := &Stream{format: format, w: bufio.NewWriter(w)}
	if format == "csv" || format == "jsonl-tidy" {
		st.extras = CSVKinds(specs)
		st.params = ParamColumns(specs)
		st.cols = CSVColumns(st.params, st.extras)
	}
	if format == "csv" {
		st.csv = csv.NewWriter(st.w)
	}
	return st, nil
}

// Write writes one result.
func (st *Stream) Write(r *result.Result) error {
	st.count++
	if st.format == "jsonl-tidy" {
		CSVRows(r, st.params, st.extras, func(row []string) { writeTidyJSON(st.w, st.cols, row) })
		return st.w.Flush()
	}
	if st.format == "csv" {
		if st.count == 1 {
			st.csv.Write(st.cols)
		}
		CSVRows(r, st.params, st.extras, func(row []string) { st.csv.Write(row) })
		st.csv.Flush()
		return st.csv.Error()
	}
	b, err := result.Encode(r)
	if err != nil {
		return err
	}
	if st.format == "json" {
		if st.count == 1 {
			st.w.WriteString("[")
		} else {
			st.w.WriteString(",")
		}
		st.w.WriteString("\n")
		st.w.Write(b)
		return st.w.Flush()
	}
	st.w.Write(b)
	st.w.WriteByte('\n')
	return st.w.Flush()
}

// Finish ends the output: a JSON array's closing bracket (an empty array
// when no result came).
func (st *Stream) Finish() error {
	if st.format == "json" {
		if st.count == 0 {
			st.w.WriteString("[")
		}
		st.w.WriteString("\n]\n")
	}
	return st.w.Flush()
}

// jsonNumber is JSON's grammar of a number (NaN, ±Inf, hex or a leading
// + or 0 are not numbers there, so such a cell is written as a string).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// writeTidyJSON writes one tidy row as a JSON object on a line: the keys
// are the CSV's columns in order, a blank cell is left out (a parameter or
// extra block the row's process does not have), true and false are
// booleans, a cell that reads as a number is one (its text as the CSV has
// it), and any other a string.
func writeTidyJSON(w *bufio.Writer, cols, row []string) {
	w.WriteByte('{')
	first := true
	for i, v := range row {
		if v == "" {
			continue
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(cols[i])
		w.Write(key)
		w.WriteByte(':')
		if jsonNumber.MatchString(v) || v == "true" || v == "false" {
			w.WriteString(v)
			continue
		}
		b, _ := json.Marshal(v)
		w.Write(b)
	}
	w.WriteString("}\n")
}

// CSVHeader are the columns every CSV row has after the process and its
// parameters, before the extra blocks' (README: the data dictionary).
var CSVHeader = []string{
	"bins", "balls", "trial", "seed", "engine", "at_balls", "final",
	"gap", "max_load", "min_load", "underload", "quadratic_potential", "alpha", "log_exp_potential",
	"max_gap", "elapsed_s", "balls_per_s",
}

// ParamColumns are the parameters of specs, each a CSV column, sorted by
// name: a row leaves blank the parameters its process does not take.
func ParamColumns(specs []*core.Spec) []string {
	var names []string
	for _, s := range specs {
		for k := range s.ParamsMap() {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	slices.Sort(names)
	return names
}

// CSVKinds are the extra blocks with CSV columns that the processes of
// specs report (process.Entry.Reports), in rank order.
func CSVKinds(specs []*core.Spec) []*result.Kind {
	var ks []*result.Kind
	for _, k := range result.Kinds() {
		for _, s := range specs {
			if len(k.Columns) > 0 && slices.Contains(s.Process.Reports, k) {
				ks = append(ks, k)
				break
			}
		}
	}
	return ks
}

// CSVColumns is the header of a run's CSV: the process, a column per
// parameter (ParamColumns), CSVHeader, and the columns of an extra block
// only when a process of the run reports it (blank in other processes'
// rows). One schema a run.
func CSVColumns(params []string, extras []*result.Kind) []string {
	cols := append([]string{"process"}, params...)
	cols = append(cols, CSVHeader...)
	for _, k := range extras {
		cols = append(cols, k.Columns...)
	}
	return cols
}

// CSVRows gives a trial as tidy rows: one per checkpoint before the end
// (at_balls < balls, final false) and one for the end (final true; a
// checkpoint at the end is that row), handing each to emit as it is made
// (a row's slice is reused after). max_gap is the running max_gap, the
// largest gap so far (Checkpoint.MaxGap), and the trial's at the end.
// Each row ends in the columns of the extra blocks, blank where the trial
// has no block of that kind (their figures are the trial's, repeated).
func CSVRows(r *result.Result, params []string, extras []*result.Kind, emit func(row []string)) {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	head := []string{r.Process}
	for _, name := range params {
		v, ok := r.Params[name]
		if !ok {
			head = append(head, "")
			continue
		}
		head = append(head, fmt.Sprint(v))
	}
	head = append(head, u(r.Bins), u(r.Balls), u(r.Trial), u(r.Seed), r.Engine)
	tail := []string{f(r.ElapsedS), f(r.BallsPerS)}
	for _, k := range extras {
		tail = append(tail, k.Row(r.Extra(k))...)
	}
	// The end is at m balls thrown; when balls leave, at the run's events
	// or steps (balls then holds the balls present at the end).
	end := r.Balls
	if r.Dynamic != nil && r.Dynamic.Events > 0 {
		end = r.Dynamic.Events
	}
	row := make([]string, 0, len(head)+10+len(tail))
	for _, c := range r.Checkpoints {
		if c.Balls == end {
			continue
		}
		row = append(append(row[:0], head...), u(c.Balls), "false", f(c.Gap), f(c.MaxLoad), f(c.MinLoad), f(c.Underload), f(float64(c.Quadratic)), f(r.Alpha), f(c.LogExpPot), f(c.MaxGap))
		emit(append(row, tail...))
	}
	row = append(append(row[:0], head...), u(end), "true", f(r.Gap), f(r.MaxLoad), f(r.MinLoad), f(r.Underload), f(float64(r.Quadratic)), f(r.Alpha), f(r.LogExpPot), f(r.MaxGap))
	emit(append(row, tail...))
}

// ExtraTables writes the table block of every extra kind that has one, in
// rank order, for the specs of a run: rows[i] names spec i and tallies[i]
// its tallies, made by NewTallies and fed every trial of the spec (a block
// prints nothing when no spec has its figures).
func ExtraTables(w io.Writer, rows []result.TallyRow, tallies [][]result.Tally) {
	for i, k := range TableKinds() {
		for j := range rows {
			rows[j].Tally = tallies[j][i]
		}
		k.Table(w, rows)
	}
}

// TableKinds are the extra kinds that have a table block, in rank order.
func TableKinds() []*result.Kind {
	var ks []*result.Kind
	for _, k := range result.Kinds() {
		if k.Table != nil {
			ks = append(ks, k)
		}
	}
	return ks
}

// NewTallies are one spec's tallies of the extra kinds with a table block,
// in TableKinds' order: feed each trial to every one (Tally.Add).
func NewTallies() []result.Tally {
	var ts []result.Tally
	for _, k := range TableKinds() {
		ts = append(ts, k.NewTally())
	}
	return ts
}
