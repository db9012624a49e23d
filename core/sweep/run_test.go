package sweep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/balloc/balloc/core/engine"
)

// Open locks the folder, lists the trials still to run and, opened again
// after some were written, skips them; a second Open while the first holds
// the lock is refused.
func TestOpenResumes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "g.toml")
	if err := os.WriteFile(file, []byte("processes = [\"two-choice\"]\nbins = [10, 20]\nballs = [100]\ntrials = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGrid(file)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := Open(g, file, "", 0, 1, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	if sr.Out != filepath.Join(dir, "g") || sr.Jobs.Total() != 6 || sr.Before != 0 {
		t.Fatalf("out %s, %d jobs, %d before; want %s/g, 6, 0", sr.Out, sr.Jobs.Total(), sr.Before, dir)
	}
	if err := sr.CheckMemory(4); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(g, file, "", 0, 1, "test", ""); err == nil {
		t.Error("a second Open of a locked folder was not refused")
	}
	if err := sr.Manifest.Write(sr.Out); err != nil {
		t.Fatal(err)
	}
	rw, err := AppendResults(sr.ResultsPath, sr.Valid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(2) {
		p, trial := sr.Jobs.At(i)
		r := engine.RunTrial(g.Specs[p], trial, nil)
		r.SpecHash = g.Hashes[p]
		if err := rw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	sr.Release()
	sr, err = Open(g, file, "", 0, 1, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Release()
	if sr.Before != 2 || sr.Jobs.Total() != 4 {
		t.Errorf("resumed: %d before, %d to run; want 2 and 4", sr.Before, sr.Jobs.Total())
	}
}
