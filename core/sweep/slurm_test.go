package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/internal/files"
)

// Every Slurm time format is taken as it is.
func TestSlurmTimeFormats(t *testing.T) {
	for _, v := range []string{"30", "30:00", "02:00:00", "1-12", "1-12:30", "1-12:30:00", "0", "INFINITE", "unlimited"} {
		if err := CheckSlurmTime(v); err != nil {
			t.Errorf("--time %q refused: %v", v, err)
		}
	}
}

// Write puts the three scripts in OUT/slurm with absolute paths inside
// them, executable; a second Write is refused without force and writes
// nothing, and with force replaces all three.
func TestSlurmJobWrite(t *testing.T) {
	dir := t.TempDir()
	job := SlurmJob{Bin: "/usr/bin/balloc", File: filepath.Join(dir, "s.toml"), Out: filepath.Join(dir, "out"), Tasks: 4, CPUs: 2}
	paths, replaced, err := job.Write(false)
	if err != nil || len(paths) != 3 || slices.Contains(replaced, true) {
		t.Fatalf("first write: %v, %v, %v", paths, replaced, err)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o100 == 0 || filepath.Dir(p) != filepath.Join(dir, "out", "slurm") {
			t.Errorf("%s: %v, mode %v", p, err, fi)
		}
	}
	b, _ := os.ReadFile(paths[0])
	if !strings.Contains(string(b), filepath.Join(dir, "s.toml")) {
		t.Errorf("the array script does not name the sweep file by its path:\n%s", b)
	}
	files.Forget() // a new command: the outputs one command writes are checked to be distinct
	if paths, _, err := job.Write(false); err == nil || len(paths) != 0 || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second write without force: %v, %v", paths, err)
	}
	files.Forget()
	if _, replaced, err := job.Write(true); err != nil || !slices.Equal(replaced, []bool{true, true, true}) {
		t.Errorf("with force: %v, %v", replaced, err)
	}
	files.Forget()
	job.Bin = "/bin/ball oc\n"
	var we *WriteError
	if _, _, err := job.Write(true); !errors.As(err, &we) {
		t.Errorf("an executable path the scripts cannot name: %v, want a WriteError", err)
	}
}
