package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The stale models' keys (update_delay, update_individual) reach the specs
// and their hashes, and a bad value names its key and line.
func TestGridStaleKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := "process = \"two-choice\"\nbins = [1000]\narrival_rate = 0.9\ntime = 50\n"
	hashes := map[string]string{}
	for _, key := range []string{"update_period", "update_delay", "update_individual"} {
		g, err := ReadGrid(write(key+".toml", base+key+" = 2\n"))
		if err != nil {
			t.Fatal(err)
		}
		d := g.Specs[0].Dynamic
		if got := map[string]float64{"update_period": d.UpdatePeriod, "update_delay": d.UpdateDelay, "update_individual": d.UpdateIndividual}[key]; got != 2 {
			t.Errorf("%s = 2 read as %+v", key, d)
		}
		if g.Specs[0].ResolvedEngine() != "direct" {
			t.Errorf("%s: engine %s", key, g.Specs[0].ResolvedEngine())
		}
		for other, h := range hashes {
			if h == g.Hashes[0] {
				t.Errorf("%s and %s hash alike", key, other)
			}
		}
		hashes[key] = g.Hashes[0]
	}
	for _, c := range []struct{ text, want string }{
		{base + "update_delay = -1\n", ":5: update_delay: "},
		{base + "update_individual = \"x\"\n", ":5: update_individual: "},
		{base + "update_delay = 1\nupdate_individual = 1\n", "update_individual"},
		{base + "engine = \"histogram\"\nupdate_delay = 1\n", "update_delay"},
		{"process = \"two-choice\"\nbins = [100]\nballs = [100]\nupdate_delay = 1\n", "update_delay"},
	} {
		_, err := ReadGrid(write("bad.toml", c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
