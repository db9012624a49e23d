package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oldIDs are single-valued sweep files of every dynamic key with the cell
// ids (spec hashes) the code before lists gave them (d948696, where each
// dynamic key took one value): a folder swept then must resume now.
var oldIDs = []struct {
	name, text string
	ids        []string
}{
	{"stale", "processes    = [\"two-choice\", \"d-choice\"]\nbins         = [10_000]\ntrials       = 1\nseed         = 1\nengine       = \"direct\"\narrival_rate = 0.9\ntime         = 2000\nwarmup       = 200\nupdate_delay = 1\n[params]\nd            = [3]\n",
		[]string{"740f9d13426cf38d", "e05a25d2c188c3af"}},
	{"period", "processes = [\"two-choice\", \"one-choice\"]\nbins = [1000, 2000]\narrival_rate = 0.9\ntime = 50\nwarmup = 5\nupdate_period = 2\ncheckpoints = 4\n",
		[]string{"041f33fe4db972a9", "aa20e9595cf2627a", "3302186d4d349617", "ddeac0ee448f6c5f"}},
	{"individual", "process = \"d-choice\"\nbins = [1000]\narrival_rate = 0.5\nevents = 1e6\nupdate_individual = 0.5\n[params]\nd = [2, 3]\n",
		[]string{"62191dcf11270a9f", "3afd55b6d630f1d2"}},
	{"histogram", "process = \"quantile\"\nbins = [1e6]\narrival_rate = 0.99\ntime = 100\nseed = 7\n[params]\ndelta = [0.5]\n",
		[]string{"339691fa5c745af0"}},
	{"deletions", "processes = [\"two-choice\", \"one-plus-beta\"]\nbins = [100]\nballs = [1e4, 1e5]\ndelete_prob = 0.3\ndelete = \"bin\"\n[params]\nbeta = [0.5]\n",
		[]string{"6bef7d7d9199e8d5", "1d45403ba5ad65f0", "dc437acec1306402", "02be16d80383538d"}},
	{"phases", "process = \"two-choice\"\nbins = [100]\nphases = \"+1e4,-5e3,+1e4\"\ndelete = \"ball\"\n",
		[]string{"6e8c094748b83bdd"}},
}

func writeGrid(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name+".toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A file giving each dynamic key one value makes the cells it made before
// the keys took lists, and so does the same file with each value written as
// a one-item list.
func TestDynamicGridSingleValuesKeepTheirIDs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range oldIDs {
		g, err := ReadGrid(writeGrid(t, dir, c.name, c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(g.Hashes, c.ids) {
			t.Errorf("%s: ids %q, before lists %q", c.name, g.Hashes, c.ids)
		}
		// arrival_rate = 0.9 → arrival_rate = [0.9], and so on.
		var lines []string
		for _, l := range strings.Split(c.text, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok && slices.Contains(dynamicKeys, strings.TrimSpace(k)) {
				l = k + "= [" + strings.TrimSpace(v) + "]"
			}
			lines = append(lines, l)
		}
		g, err = ReadGrid(writeGrid(t, dir, c.name+"-list", strings.Join(lines, "\n")))
		if err != nil {
			t.Fatalf("%s as lists: %v", c.name, err)
		}
		if !slices.Equal(g.Hashes, c.ids) {
			t.Errorf("%s as one-item lists: ids %q, want %q", c.name, g.Hashes, c.ids)
		}
	}
}

// Lists expand to the product, inside each process (and bins, balls,
// parameters), the first key of dynamicKeys varying slowest; each cell is
// the cell a single-valued file of its values makes (the same id).
func TestDynamicGridListsExpand(t *testing.T) {
	dir := t.TempDir()
	g, err := ReadGrid(writeGrid(t, dir, "a", "processes = [\"two-choice\", \"one-choice\"]\nbins = [1000]\narrival_rate = [0.5, 0.9]\ntime = 50\nwarmup = 5\nupdate_period = [0.5, 1, 2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		proc      string
		lambda, T float64
	}
	var want []cell
	for _, p := range []string{"two-choice", "one-choice"} {
		for _, l := range []float64{0.5, 0.9} {
			for _, T := range []float64{0.5, 1, 2} {
				want = append(want, cell{p, l, T})
			}
		}
	}
	var got []cell
	for _, s := range g.Specs {
		got = append(got, cell{s.Process.Name, s.Dynamic.ArrivalRate, s.Dynamic.UpdatePeriod})
		if s.Dynamic.Time != 50 || s.Dynamic.Warmup != 5 || s.Balls != uint64(1000*(1+s.Dynamic.ArrivalRate)*50+0.5) {
			t.Errorf("%s: %+v, %d events", s.Process.Name, s.Dynamic, s.Balls)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("cells %v\nwant  %v", got, want)
	}
	for i, c := range want {
		one, err := ReadGrid(writeGrid(t, dir, "one", fmt.Sprintf("process = %q\nbins = [1000]\narrival_rate = %g\ntime = 50\nwarmup = 5\nupdate_period = %g\n", c.proc, c.lambda, c.T)))
		if err != nil {
			t.Fatal(err)
		}
		if one.Hashes[0] != g.Hashes[i] {
			t.Errorf("cell %v: id %s in the list, %s alone", c, g.Hashes[i], one.Hashes[0])
		}
	}
	// Deletions: delete_prob × delete, two models' keys at once.
	d, err := ReadGrid(writeGrid(t, dir, "d", "process = \"two-choice\"\nbins = [100]\nballs = [1e4]\ndelete_prob = [0.1, 0.3]\ndelete = [\"ball\", \"bin\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var dels []string
	for _, s := range d.Specs {
		dels = append(dels, s.ParamsText())
	}
	if want := []string{"d=2 delete=ball delete_prob=0.1", "d=2 delete=bin delete_prob=0.1", "d=2 delete=ball delete_prob=0.3", "d=2 delete=bin delete_prob=0.3"}; !slices.Equal(dels, want) {
		t.Errorf("deletion cells %q, want %q", dels, want)
	}
}

// A list with a bad value, a value twice (as written or as one number in
// two spellings), or a combination no run can have: one line naming the
// file's line and the key, before any grid point is made.
func TestDynamicGridListErrors(t *testing.T) {
	dir := t.TempDir()
	base := "process = \"two-choice\"\nbins = [1000]\n"
	for _, c := range []struct{ text, want string }{
		{base + "arrival_rate = [0.5, 1.5]\ntime = 10\n", ":3: arrival_rate: want an arrival rate per bin λ with 0 < λ < 1"},
		{base + "arrival_rate = 0.5\ntime = [10, -1]\n", ":4: time: want a time in [0, 1e15]"},
		{base + "arrival_rate = 0.5\nevents = [1e5, 0]\n", ":4: events: want a count of events, at least 1"},
		{base + "arrival_rate = 0.5\ntime = 10\nupdate_period = [1, \"x\"]\n", ":5: update_period: "},
		{base + "balls = [1e4]\ndelete_prob = [0.1, 1]\n", ":4: delete_prob: want a probability with 0 ≤ p < 1"},
		{base + "balls = [1e4]\ndelete_prob = 0.1\ndelete = [\"ball\", \"box\"]\n", ":5: delete: want ball"},
		{base + "phases = [\"+10,-5\", \"10\"]\n", ":3: phases: "},
		{base + "arrival_rate = [0.5, 0.9, 0.5]\ntime = 10\n", ":3: arrival_rate: lists 0.5 twice"},
		{base + "arrival_rate = 0.5\ntime = 10\nupdate_delay = [1, 2, 1.0]\n", ":5: update_delay: lists 1 twice"},
		{base + "arrival_rate = 0.5\ntime = 10\nupdate_delay = [1, \"1.0\"]\n", `:5: update_delay: lists 1.0 twice ("1" and "1.0" are one value)`},
		{base + "arrival_rate = [0.5, \"5e-1\"]\ntime = 10\n", `:3: arrival_rate: lists 5e-1 twice ("0.5" and "5e-1" are one value)`},
		// Combinations: every value is fine alone, some cell is impossible.
		{base + "arrival_rate = 0.5\ntime = [10, 50]\nwarmup = [5, 20]\n", ":5: warmup: --warmup 20: want less than the run (10 time units"},
		{base + "balls = [1e4]\nupdate_period = [1, 2]\n", ":4: update_period: --update-period: stale loads are a setting of the supermarket model; add --arrival-rate λ"},
		{base + "arrival_rate = 0.5\ntime = 10\nupdate_period = [1, 2]\nupdate_delay = [1]\n", ":6: update_delay: --update-delay: give one stale-information model"},
		{base + "arrival_rate = [0.5, 0.9]\ntime = [10]\nevents = [100]\n", ":5: events: --events: give --time or --events, not both"},
		{base + "arrival_rate = 0.5\ntime = [10, 20]\nupdate_period = [1e-6, 1]\n", ":5: update_period: --update-period 1e-06: shorter than one event"},
		{base + "balls = [1e4]\ndelete = [\"ball\", \"bin\"]\n", ":4: delete: it says which ball a deletion removes; set delete_prob or phases"},
		{base + "arrival_rate = 0.5\ntime = 10\nengine = \"histogram\"\nupdate_delay = [0.5, 1]\n", ":6: update_delay: --update-delay: stale loads run on the direct engine only"},
	} {
		_, err := ReadGrid(writeGrid(t, dir, "bad", c.text))
		if err == nil || !strings.Contains(err.Error(), "bad.toml"+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line with %q", c.text, err, c.want)
		}
	}
}

// experiments/stale.toml lists T now; its T = 1 cells are the two the file
// made when it took one value (oldIDs' "stale"), so its folder resumes.
func TestStaleExperimentKeepsItsCells(t *testing.T) {
	g, err := ReadGrid(filepath.Join("..", "..", "experiments", "stale.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Hashes) != 12 {
		t.Errorf("%d cells, want 2 processes × 6 delays", len(g.Hashes))
	}
	for _, id := range oldIDs[0].ids {
		if !slices.Contains(g.Hashes, id) {
			t.Errorf("cell %s of the single-valued stale.toml is gone: %q", id, g.Hashes)
		}
	}
}
