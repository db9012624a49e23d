package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sweep file's dynamic keys reach the specs (and their hashes), and a bad
// value names its key and line.
func TestGridDynamicKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	g, err := ReadGrid(write("a.toml", "processes = [\"two-choice\", \"one-choice\"]\nbins = [1000]\narrival_rate = 0.9\ntime = 50\nwarmup = 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Specs) != 2 || g.Specs[0].Dynamic.ArrivalRate != 0.9 || g.Specs[0].Balls != 95000 || g.Specs[1].Dynamic.Warmup != 5 {
		t.Fatalf("specs %+v", g.Specs[0].Common)
	}
	h, err := ReadGrid(write("b.toml", "processes = [\"two-choice\", \"one-choice\"]\nbins = [1000]\narrival_rate = 0.8\ntime = 50\nwarmup = 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Hashes[0] == h.Hashes[0] {
		t.Error("λ = 0.9 and 0.8 hash alike")
	}
	d, err := ReadGrid(write("d.toml", "process = \"two-choice\"\nbins = [100]\nballs = [1e4]\ndelete_prob = 0.3\ndelete = \"bin\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Specs[0]; s.Dynamic.DeleteProb != 0.3 || s.Dynamic.DeleteMode() != "bin" || s.Balls != 10000 {
		t.Errorf("deletions spec %+v", s.Dynamic)
	}
	for _, c := range []struct{ text, want string }{
		{"process = \"two-choice\"\nbins = [100]\narrival_rate = 1.5\ntime = 10\n", ":3: arrival_rate: "},
		{"process = \"two-choice\"\nbins = [100]\narrival_rate = 0.5\ntime = 10\nwarmup = 20\n", ":5: warmup: "},
		{"process = \"threshold\"\nbins = [100]\narrival_rate = 0.5\ntime = 10\n", ":3: arrival_rate: "},
		{"process = \"two-choice\"\nbins = [100]\nballs = [100]\ndelete = \"ball\"\n", ":4: delete: "},
		{"process = \"two-choice\"\nbins = [100]\narrival_rate = 0.5\n", "--time is required"},
	} {
		_, err := ReadGrid(write("bad.toml", c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
