package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// Run is a sweep checked and ready to run: its folder locked, its
// manifest made (not yet written: Manifest.Write), the trials already done
// read.
type Run struct {
	Grid        *Grid
	Manifest    *Manifest
	Out         string // the folder
	ResultsPath string // its results.jsonl
	Jobs        *Jobs  // this shard's trials still to run
	Before      int    // trials already there
	Valid       int64  // the results file's length without a torn last line
	Notes       []string
	lock        *Lock
}

// Open opens the sweep of grid g (read from file) for the shard si of sn
// (0 of 1: all of it) in the folder out (empty: file's name without its
// extension): it makes and locks the folder, writes nothing yet, and reads
// the trials the folder already holds. The lock, once taken, is returned
// with any error, for the caller to release (Release). Version and commit
// go into the manifest.
func Open(g *Grid, file, out string, si, sn uint64, version, commit string) (*Run, error) {
	sr := &Run{Grid: g, Out: out}
	if sr.Out == "" {
		sr.Out = strings.TrimSuffix(file, filepath.Ext(file))
	}
	shardText := ""
	if sn > 1 {
		shardText = fmt.Sprintf("%d/%d", si, sn)
	}
	sr.Manifest = NewManifest(g, shardText, version, commit)
	if err := sr.lockFolder(); err != nil {
		return sr, err
	}
	return sr, sr.readDone(si, sn)
}

// Release releases the folder's lock, if it was taken.
func (sr *Run) Release() {
	if sr.lock != nil {
		sr.lock.Release()
	}
}

// lockFolder makes and locks the output folder and checks that what it
// holds is an earlier run of this sweep, or nothing. A folder that is not
// balloc's is left as it is: nothing is made, locked or written there.
func (sr *Run) lockFolder() error {
	out := sr.Out
	if _, err := CheckFolder("--out", out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	// The lock comes before the manifest is read or written and is held to
	// the end: two runs on one folder would interleave their lines.
	var err error
	if sr.lock, err = LockFolder(out, "sweep"); err != nil {
		return err
	}
	if old, err := ReadManifest(out); err == nil {
		if err := CheckExtends(out, old, sr.Manifest); err != nil {
			return err
		}
		if old.Shard != sr.Manifest.Shard {
			return fmt.Errorf("--out %s holds shard %q, not %q", out, old.Shard, sr.Manifest.Shard)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	return nil
}

// readDone reads the trials already done, one line at a time (what is
// kept grows with the trials, not the file: TrialIndex), and lists
// this shard's trials still to run, lazily (Jobs).
func (sr *Run) readDone(si, sn uint64) error {
	sr.ResultsPath = filepath.Join(sr.Out, "results.jsonl")
	done := make([][]uint64, len(sr.Grid.Specs))
	_, foreign, valid, torn, err := NewTrialIndex(sr.Manifest.Grid).Scan(sr.ResultsPath, func(p int, r *result.Result) error {
		done[p] = append(done[p], r.Trial)
		sr.Before++
		return nil
	})
	if err != nil {
		return err
	}
	sr.Valid = valid
	// Said once every check has passed, so that a refusal stays one line.
	if torn {
		sr.Notes = append(sr.Notes, fmt.Sprintf("balloc sweep: %s ended in a torn line (a run was killed); it is dropped and its trial run again", sr.ResultsPath))
	}
	AddNote(&sr.Notes, ForeignNote("sweep", sr.ResultsPath, foreign))
	sr.Jobs = NewJobs(sr.Grid, si, sn, done)
	return nil
}

// CheckMemory refuses a sweep whose largest trial, times the workers that
// run trials at once, would not fit, naming what drives its size.
func (sr *Run) CheckMemory(workers int) error {
	var per units.Footprint
	perPoint := 0
	for p, s := range sr.Grid.Specs {
		if f := engine.Footprint(s); f.Bytes > per.Bytes || p == 0 {
			per, perPoint = f, p
		}
	}
	mem := units.MemoryLimit()
	if mem.Bytes == 0 || sr.Jobs.Total() == 0 {
		return nil
	}
	avail := mem.Bytes
	at := min(uint64(workers), sr.Jobs.Total())
	s := sr.Grid.Specs[perPoint]
	what := fmt.Sprintf("the sweep's largest trial (%s %s) needs %s, mostly for %s", s.Process.Name, s.ParamsText(), units.FormatBytes(float64(per.Bytes)), per.Culprit)
	switch {
	case per.Bytes > avail:
		return fmt.Errorf("%s, more than the %v: %s", what, mem, per.Hint)
	case units.Mul(per.Bytes, at) > avail:
		return fmt.Errorf("%s; %d at once exceed the %v: use --workers %d (or %s)", what, at, mem, avail/per.Bytes, per.Hint)
	}
	return nil
}
