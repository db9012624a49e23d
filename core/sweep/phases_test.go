package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The phases key reaches the specs (balls left out: the phases' steps), it
// enters the hash, and a bad value names its key and line.
func TestGridPhasesKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	g, err := ReadGrid(write("a.toml", "processes = [\"two-choice\", \"quantile\"]\nbins = [100]\nphases = \"+1e4,-5e3,+1e4\"\ndelete = \"bin\"\n[params]\ndelta = [0.5]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Specs) != 2 || g.Specs[0].Balls != 25000 || len(g.Specs[1].Dynamic.Phases) != 3 || g.Specs[1].Dynamic.DeleteMode() != "bin" {
		t.Fatalf("specs %+v", g.Specs[0].Common)
	}
	h, err := ReadGrid(write("b.toml", "processes = [\"two-choice\", \"quantile\"]\nbins = [100]\nphases = \"+1e4,-5e3,+1e4\"\n[params]\ndelta = [0.5]\n"))
	if err != nil {
		t.Fatal(err)
	}
	i, err := ReadGrid(write("c.toml", "processes = [\"two-choice\", \"quantile\"]\nbins = [100]\nphases = \"+1e4,-6e3,+1e4\"\n[params]\ndelta = [0.5]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Hashes[0] == h.Hashes[0] || h.Hashes[0] == i.Hashes[0] {
		t.Error("phases or their delete mode do not enter the hash")
	}
	for _, c := range []struct{ text, want string }{
		{"process = \"two-choice\"\nbins = [100]\nphases = \"1e4,-5\"\n", ":3: phases: "},
		{"process = \"two-choice\"\nbins = [100]\nballs = [99]\nphases = \"+10,-5\"\n", "--balls 99"},
		{"process = \"two-choice\"\nbins = [100]\nphases = \"+10,-5\"\ndelete_prob = 0.2\n", "phases"},
	} {
		_, err := ReadGrid(write("bad.toml", c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
