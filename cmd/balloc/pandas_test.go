package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// examples/sweep_pandas.py loads a sweep into pandas and draws it: run
// where python3 has pandas and matplotlib (Debian's python3-pandas,
// python3-matplotlib), skipped elsewhere.
func TestPandasExample(t *testing.T) {
	if exec.Command("python3", "-c", "import pandas, matplotlib").Run() != nil {
		t.Skip("python3 with pandas and matplotlib is not installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "gap-vs-n")
	if code, _, errs := run(t, "sweep", filepath.Join("..", "..", "examples", "gap-vs-n.toml"), "--out", out, "--progress", "never"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
	png := filepath.Join(dir, "gap-vs-n.png")
	cmd := exec.Command("python3", filepath.Join("..", "..", "examples", "sweep_pandas.py"), out, png)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sweep_pandas.py: %v\n%s", err, b)
	}
	for _, want := range []string{"params.d", "two-choice", "10000", "figure: " + png} {
		if !strings.Contains(string(b), want) {
			t.Errorf("output lacks %q:\n%s", want, b)
		}
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("no figure: %v", err)
	}
}
