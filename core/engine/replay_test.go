package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// tau-delay --delay replay on a file of constant ages τ is tau-delay
// --delay fixed --tau τ: the same seeded trial, exactly.
func TestReplayFileOfConstantAgesIsFixedDelay(t *testing.T) {
	const n, m, tau = 50, 4000, 37
	path := filepath.Join(t.TempDir(), "ages")
	ages := make([]uint32, m)
	for k := range ages {
		ages[k] = tau
	}
	f, _ := os.Create(path)
	if err := process.WriteReplay(f, ages); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c := core.Common{Bins: n, Balls: m, Trials: 1, Seed: 4, Alpha: 1, Engine: core.EngineDirect}
	rs, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay", "replay": path}, c)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := core.NewSpec("tau-delay", map[string]string{"delay": "fixed", "tau": fmt.Sprint(tau)}, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.ParamsMap()["tau"]; got != uint64(tau) {
		t.Errorf("τ of the replay is %v, want the largest age %d", got, tau)
	}
	a, b := RunTrial(rs, 2, nil), RunTrial(fs, 2, nil)
	if fmt.Sprint(a.Histogram) != fmt.Sprint(b.Histogram) {
		t.Errorf("replay %v, fixed %v", a.Histogram, b.Histogram)
	}
	if rs.Hash() == fs.Hash() {
		t.Error("the replay and the fixed delay hash alike")
	}
}

func TestReplayRefusals(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("0 1\n2\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("0\n-1\n"), 0o644)
	c := core.Common{Bins: 10, Balls: 3, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect}
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"delay": "replay"}, "needs --replay"},
		{map[string]string{"delay": "replay", "replay": good, "tau": "3"}, "leave --tau out"},
		{map[string]string{"delay": "fixed", "tau": "3", "replay": good}, "--replay applies to --delay replay only"},
		{map[string]string{"delay": "replay", "replay": bad}, bad + ":2"},
		{map[string]string{"delay": "replay", "replay": good, "weights": "exp:1"}, "--weights"},
	} {
		if _, err := core.NewSpec("tau-delay", tc.set, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error naming %q", tc.set, err, tc.want)
		}
	}
	c.Balls = 4
	if _, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay", "replay": good}, c); err == nil || !strings.Contains(err.Error(), "holds 3 ages and --balls is 4") {
		t.Errorf("a short sequence: %v", err)
	}
}

// A sequence file too large to hold is refused from its size, before it is
// read (a sparse file: nothing is written to disk). The file is twice the
// limit (half the memory available), so that memory freed by other programs
// between the two readings of the figure cannot let it through — where it
// would be read, a line of 12 GB of NULs.
func TestReadReplayRefusesAFileLargerThanMemory(t *testing.T) {
	avail := units.AvailableMemory()
	if avail == 0 {
		t.Skip("no memory figure on this machine")
	}
	path := filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(avail)); err != nil {
		t.Skip("no sparse file here:", err)
	}
	f.Close()
	_, err = process.ReadReplay(path)
	if err == nil || !strings.Contains(err.Error(), "--replay "+path) || !strings.Contains(err.Error(), "available") {
		t.Errorf("ReadReplay of a file the size of the memory available: %v", err)
	}
}
