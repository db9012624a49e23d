package process_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/process"
)

// readmeRow is one row of the README's process table.
type readmeRow struct {
	name, flags, rule, source string
}

// readmeProcesses reads the README's process tables, those whose header
// begins "| `--process` | flags | rule |" (the catalogue, and the graph
// processes' own): their rows, table by table, up to the first line of each
// that is not a row.
func readmeProcesses(t *testing.T) [][]readmeRow {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var tables [][]readmeRow
	for i, l := range lines {
		if !strings.HasPrefix(l, "| `--process` | flags | rule |") {
			continue
		}
		var rows []readmeRow
		for _, l := range lines[i+2:] { // past the header and its rule
			if !strings.HasPrefix(l, "| `") {
				break
			}
			cells := append(splitRow(l), "")
			if len(cells) < 4 {
				t.Fatalf("README process row with %d cells, want 3 or 4: %s", len(cells)-1, l)
			}
			rows = append(rows, readmeRow{strings.Trim(cells[0], "`"), cells[1], cells[2], cells[3]})
		}
		tables = append(tables, rows)
	}
	if len(tables) == 0 {
		t.Fatal("README.md has no process table (| `--process` | flags | rule | …)")
	}
	return tables
}

// splitRow splits a Markdown table row at its unescaped bars.
func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "|"), "|")
	var cells []string
	var cur []byte
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur = append(cur, '|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(string(cur)))
			cur = cur[:0]
		default:
			cur = append(cur, l[i])
		}
	}
	return append(cells, strings.TrimSpace(string(cur)))
}

var flagName = regexp.MustCompile("`--([a-z][a-z0-9-]*)")

// Every process of the catalogue has one row in the README's process
// tables, each table in catalogue order, and no row names a process balloc
// does not know; a row's flags are flags its process takes, its required
// parameters among them; its source, where the table has one, cites the
// first author of the entry's source.
func TestReadmeProcessTableMatchesRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, rows := range readmeProcesses(t) {
		last := -1 << 31
		for _, r := range rows {
			e, err := process.Lookup(r.name)
			if err != nil {
				t.Errorf("README row %s: %v", r.name, err)
				continue
			}
			if seen[r.name] {
				t.Errorf("README row %s: a second row", r.name)
			}
			if e.Order < last {
				t.Errorf("README row %s: out of catalogue order (process.Entries)", r.name)
			}
			seen[r.name], last = true, e.Order
			if errs := rowMismatch(e, r); len(errs) > 0 {
				t.Errorf("README row %s: %s", r.name, strings.Join(errs, "; "))
			}
		}
	}
	for _, e := range process.Entries() {
		if !seen[e.Name] {
			t.Errorf("%s has no row in the README's process tables (%s)", e.Name, e.Summary)
		}
	}
}

// rowMismatch lists how a README row disagrees with its entry.
func rowMismatch(e *process.Entry, r readmeRow) []string {
	var errs []string
	shown := map[string]bool{}
	for _, m := range flagName.FindAllStringSubmatch(r.flags, -1) {
		shown[m[1]] = true
		if !e.Takes(m[1]) {
			errs = append(errs, "--"+m[1]+" is not a parameter of "+e.Name+" ("+e.TakesText()+")")
		}
	}
	for _, q := range e.New().Params() {
		if q.Default == "" && !q.IsSetting() && !shown[q.Name] && e.Fixed[q.Name] == nil {
			errs = append(errs, "its required --"+q.Name+" is not in its flags")
		}
	}
	if r.source != "" {
		first := strings.FieldsFunc(e.Source, func(c rune) bool { return c == ',' || c == ' ' || c == '(' })
		if len(first) > 0 && !strings.Contains(r.source, first[0]) {
			errs = append(errs, "its source does not cite "+first[0]+" (the entry's: "+e.Source+")")
		}
	}
	return errs
}

// The check fails where it should: a row that names a flag its process
// does not take, one that leaves out a required parameter, one citing
// another author.
func TestReadmeRowCheckFails(t *testing.T) {
	e, err := process.Lookup("two-thinning")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []readmeRow{
		{name: "two-thinning", flags: "`--threshold θ`, `--rounds`"},
		{name: "two-thinning", flags: "`--batch b`"},
		{name: "two-thinning", flags: "`--threshold θ`", source: "Vöcking 2003"},
	} {
		if len(rowMismatch(e, r)) == 0 {
			t.Errorf("row %+v passed", r)
		}
	}
	if errs := rowMismatch(e, readmeRow{name: "two-thinning", flags: "`--threshold θ`", source: "Feldheim, Gurel-Gurevich 2021"}); len(errs) > 0 {
		t.Errorf("a true row failed: %v", errs)
	}
}
