package output_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/output"
)

// The CSV is tidy: a column per parameter (blank where a process does not
// take it), a row per checkpoint before the end and one for the end, and
// max_gap the running largest gap: at each checkpoint the most of the gaps
// so far (batch ends too for b-batch), at the end the trial's max_gap.
func TestCSVTidy(t *testing.T) {
	var specs []*core.Spec
	for _, c := range []struct {
		name string
		set  map[string]string
	}{{"one-choice", nil}, {"b-batch", map[string]string{"batch": "500"}}, {"tau-delay", map[string]string{"tau": "100", "delay": "fixed"}}} {
		s, err := core.NewSpec(c.name, c.set, core.Common{Bins: 100, Balls: 20000, Trials: 2, Seed: 3, Alpha: 1, Checkpoints: 8, Engine: core.EngineDirect})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	var b bytes.Buffer
	st, err := output.NewStream(&b, "csv", specs)
	if err != nil {
		t.Fatal(err)
	}
	var rs []*result.Result
	for _, s := range specs {
		for tr := range uint64(2) {
			r := engine.RunTrial(s, tr, nil)
			rs = append(rs, r)
			if err := st.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Finish()
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if want := []string{"process", "batch", "delay", "tau", "bins"}; !slices.Equal(head[:5], want) {
		t.Fatalf("header %v, want it to start %v", head, want)
	}
	col := func(name string) int { return slices.Index(head, name) }
	num := func(row []string, name string) float64 {
		x, err := strconv.ParseFloat(row[col(name)], 64)
		if err != nil {
			t.Fatalf("%s = %q: %v", name, row[col(name)], err)
		}
		return x
	}
	if len(rows) != 1+len(rs)*8 {
		t.Fatalf("%d rows, want 1 + %d trials × 8 (7 checkpoints before the end and the end)", len(rows), len(rs))
	}
	for i, r := range rs {
		trial := rows[1+8*i : 1+8*(i+1)]
		run := 0.0
		for k, row := range trial {
			final := k == len(trial)-1
			if row[col("final")] != strconv.FormatBool(final) || num(row, "at_balls") != float64(r.Checkpoints[k].Balls) {
				t.Errorf("%s trial %d row %d: final %s at %s", r.Process, r.Trial, k, row[col("final")], row[col("at_balls")])
			}
			run = max(run, num(row, "gap"))
			mg := num(row, "max_gap")
			switch {
			case final && mg != r.MaxGap:
				t.Errorf("%s trial %d: end max_gap %v, want the trial's %v", r.Process, r.Trial, mg, r.MaxGap)
			case r.Process != "b-batch" && mg != run:
				t.Errorf("%s trial %d row %d: max_gap %v, want the running max of gaps %v", r.Process, r.Trial, k, mg, run)
			case mg < run || (k > 0 && mg < num(trial[k-1], "max_gap")):
				t.Errorf("%s trial %d row %d: max_gap %v below a gap or an earlier max_gap", r.Process, r.Trial, k, mg)
			}
		}
		if last := r.Checkpoints[len(r.Checkpoints)-1]; last.Balls == r.Balls && last.MaxGap != r.MaxGap {
			t.Errorf("%s trial %d: the last checkpoint's max_gap %v, want the trial's %v", r.Process, r.Trial, last.MaxGap, r.MaxGap)
		}
		if blank := trial[0][col("tau")] == ""; blank != (r.Process != "tau-delay") {
			t.Errorf("%s: tau column %q", r.Process, trial[0][col("tau")])
		}
	}
}

// With balls that leave, the end row is at the run's steps (balls holds
// those present), not at a checkpoint whose step count happens to equal
// the balls present: --phases +1e4,-5e3,+1e4 with 5 checkpoints has its
// checkpoint at step 15000 (15000 balls present at the end) as a row of
// its own, and the end at step 25000.
func TestCSVPhasesEnd(t *testing.T) {
	s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 100, Trials: 1, Seed: 1, Alpha: 1, Checkpoints: 5,
		Dynamic: core.Dynamic{Phases: []int64{10000, -5000, 10000}}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	st, _ := output.NewStream(&b, "csv", []*core.Spec{s})
	if err := st.Write(engine.RunTrial(s, 0, nil)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at, final, balls := slices.Index(rows[0], "at_balls"), slices.Index(rows[0], "final"), slices.Index(rows[0], "balls")
	var got []string
	for _, row := range rows[1:] {
		got = append(got, row[at]+"/"+row[final]+"/"+row[balls])
	}
	want := []string{"5000/false/15000", "10000/false/15000", "15000/false/15000", "20000/false/15000", "25000/true/15000"}
	if !slices.Equal(got, want) {
		t.Errorf("rows (at_balls/final/balls) %v, want %v", got, want)
	}
}

// jsonl-tidy is the CSV's rows as JSON objects: as many lines as the CSV
// has rows, each with the CSV's columns as keys in order (a blank cell
// left out), numbers as numbers, final as a boolean, names as strings —
// for processes with parameters of several types and an extra block.
func TestJSONLTidyIsTheCSV(t *testing.T) {
	var specs []*core.Spec
	for _, c := range []struct {
		name string
		set  map[string]string
	}{{"tau-delay", map[string]string{"tau": "100", "delay": "fixed"}}, {"bounded-hashing", map[string]string{"c": "1.25"}}} {
		s, err := core.NewSpec(c.name, c.set, core.Common{Bins: 100, Balls: 5000, Trials: 2, Seed: 3, Alpha: 1, Checkpoints: 3, Engine: core.EngineDirect})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	var c, j bytes.Buffer
	sc, _ := output.NewStream(&c, "csv", specs)
	sj, err := output.NewStream(&j, "jsonl-tidy", specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		for tr := range uint64(2) {
			r := engine.RunTrial(s, tr, nil)
			if sc.Write(r) != nil || sj.Write(r) != nil {
				t.Fatal("write failed")
			}
		}
	}
	sc.Finish()
	sj.Finish()
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(j.String(), "\n"), "\n")
	if len(lines) != len(rows)-1 || len(lines) != 2*2*3 {
		t.Fatalf("%d JSON lines, %d CSV rows after the header; want 12 each", len(lines), len(rows)-1)
	}
	head := rows[0]
	for i, line := range lines {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		keys := 0
		for k, cell := range rows[i+1] {
			v, ok := obj[head[k]]
			if cell == "" {
				if ok {
					t.Errorf("line %d: %s = %v where the CSV cell is blank", i, head[k], v)
				}
				continue
			}
			keys++
			var got string
			switch x := v.(type) {
			case json.Number:
				got = x.String()
			case bool:
				got = strconv.FormatBool(x)
			case string:
				got = x
				if head[k] != "process" && head[k] != "engine" && head[k] != "delay" {
					t.Errorf("line %d: %s = %q, a string; want a number", i, head[k], x)
				}
			default:
				t.Errorf("line %d: %s = %v (%T)", i, head[k], v, v)
			}
			if got != cell {
				t.Errorf("line %d: %s = %s, the CSV says %s", i, head[k], got, cell)
			}
		}
		if keys != len(obj) {
			t.Errorf("line %d has %d keys, the CSV row %d cells", i, len(obj), keys)
		}
		if _, ok := obj["final"].(bool); !ok {
			t.Errorf("line %d: final is not a boolean", i)
		}
	}
}
