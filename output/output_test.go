package output_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/output"
)

// trials runs one small trial of each process.
func trials(t *testing.T, names ...string) ([]*core.Spec, []*result.Result) {
	t.Helper()
	var specs []*core.Spec
	var rs []*result.Result
	for _, name := range names {
		s, err := core.NewSpec(name, nil, core.Common{Bins: 20, Balls: 400, Trials: 1, Seed: 5, Alpha: 1, Checkpoints: 2})
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
		rs = append(rs, engine.RunTrial(s, 0, nil))
	}
	return specs, rs
}

// A CSV carries the columns of the extra blocks its processes declare, in
// rank order, blank in the rows of the processes without them; none of a
// kind no process of the run reports.
func TestCSVColumnsFollowTheDeclaredBlocks(t *testing.T) {
	specs, rs := trials(t, "idea", "two-choice", "twinning")
	var b bytes.Buffer
	st, err := output.NewStream(&b, "csv", specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := st.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	st.Finish()
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h := slices.Index(rows[0], "balls_per_s") + 1
	want := []string{"retries_mean", "retries_max", "fallbacks", "estimate_spread", "estimate_lag", "estimates_held", "samples"}
	if !slices.Equal(rows[0][h:], want) || len(rows) != 1+3*2 {
		t.Fatalf("header %v (%d rows), want extras %v", rows[0][h:], len(rows), want)
	}
	for _, row := range rows[1:] {
		idea, twin := row[0] == "idea", row[0] == "twinning"
		if (row[h] != "") != idea || (row[h+6] != "") != twin || len(row) != len(rows[0]) {
			t.Errorf("row %v: extras filled for the wrong process", row)
		}
	}
	specs, rs = trials(t, "two-choice")
	b.Reset()
	st, _ = output.NewStream(&b, "csv", specs)
	st.Write(rs[0])
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "process,d,"+strings.Join(output.CSVHeader, ",") {
		t.Errorf("two-choice alone: header %s", first)
	}
}

// JSON is one array of the results, extras included, that reads back to the
// same blocks; JSON Lines the same objects, one a line; an empty run is [].
func TestJSONReadsBack(t *testing.T) {
	specs, rs := trials(t, "threshold", "packing")
	var arr, lines bytes.Buffer
	ja, _ := output.NewStream(&arr, "json", specs)
	jl, _ := output.NewStream(&lines, "jsonl", specs)
	for _, r := range rs {
		ja.Write(r)
		jl.Write(r)
	}
	ja.Finish()
	jl.Finish()
	var back []result.Result
	if err := json.Unmarshal(arr.Bytes(), &back); err != nil || len(back) != 2 {
		t.Fatalf("json: %v\n%s", err, arr.String())
	}
	for i := range back {
		if !reflect.DeepEqual(back[i].Extras, rs[i].Extras) || len(back[i].Extras) != 1 {
			t.Errorf("%s: extras %v read back as %v", rs[i].Process, rs[i].Extras, back[i].Extras)
		}
		line, _ := result.Encode(rs[i])
		if got := strings.Split(lines.String(), "\n")[i]; got != string(line) {
			t.Errorf("jsonl line %d: %s, want %s", i, got, line)
		}
	}
	var empty bytes.Buffer
	e, _ := output.NewStream(&empty, "json", nil)
	e.Finish()
	if empty.String() != "[\n]\n" {
		t.Errorf("empty json: %q", empty.String())
	}
	if _, err := output.NewStream(&empty, "table", nil); err == nil {
		t.Error("NewStream accepted the table format")
	}
}
