package main

import (
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/internal/files"
)

// Results files are read one line at a time (sweep.ScanResults): what a
// reader keeps grows with the trials of the grid, never with the size of a
// line. trialIndex is that per-trial part: for each (grid point, trial) seen,
// a digest of its result and where its line is, about 100 bytes a trial
// with the map's overhead, against the 1–2 KB a decoded result with its
// checkpoints and histogram takes.

// trialKey names one trial of a grid: the point's index in the manifest and
// the trial's index.
type trialKey struct {
	point int
	trial uint64
}

// trialSeen is the first line seen for a trial: the digest of its JSON
// without timing, the results file it is in (an index into the files
// scanned), its line number, and its byte offset and length there.
type trialSeen struct {
	sum       [32]byte
	src, line int
	off       int64
	size      int
}

// trialIndex checks the results files of one grid as they are read: each
// (grid point, trial) is kept once, an identical copy of a line (timings
// aside) is a duplicate, a different result for one trial is an error.
type trialIndex struct {
	grid   []gridPoint
	points map[string]int // spec hash → index in grid
	seen   map[trialKey]trialSeen
	paths  []string // the results files scanned, by src
}

func newTrialIndex(grid []gridPoint) *trialIndex {
	ix := &trialIndex{grid: grid, points: make(map[string]int, len(grid)), seen: map[trialKey]trialSeen{}}
	for i, gp := range grid {
		ix.points[gp.SpecHash] = i
	}
	return ix
}

// scan reads the results file path. keep is called with each record that
// is a trial of the grid seen for the first time (in any file scanned), and
// its point's index; lines of another grid, or beyond a point's trials, are
// counted in foreign and left out. It also returns the file's valid length
// and whether it ends in a torn line (sweep.ScanResults).
func (ix *trialIndex) scan(path string, keep func(p int, r *result.Result) error) (dups, foreign int, valid int64, torn bool, err error) {
	src := len(ix.paths)
	ix.paths = append(ix.paths, path)
	valid, torn, err = sweep.ScanResults(path, func(line int, off int64, raw []byte, r *result.Result) error {
		p, ok := ix.points[r.SpecHash]
		if !ok || r.Trial >= uint64(ix.grid[p].Trials) {
			foreign++
			return nil
		}
		key := trialKey{p, r.Trial}
		sum := sha256.Sum256([]byte(withoutTiming(r)))
		if prev, ok := ix.seen[key]; ok {
			if prev.sum == sum {
				dups++
				return nil
			}
			if prev.src == src {
				return fmt.Errorf("%s: lines %d and %d hold different results for trial %d of %s (%s); remove the wrong one",
					path, prev.line, line, r.Trial, ix.grid[p].describe(), r.SpecHash)
			}
			return fmt.Errorf("trial %d of grid point %s differs between %s and %s; remove the wrong one",
				r.Trial, r.SpecHash, ix.paths[prev.src], path)
		}
		ix.seen[key] = trialSeen{sum: sum, src: src, line: line, off: off, size: len(raw)}
		return keep(p, r)
	})
	if err != nil {
		return 0, 0, 0, false, err
	}
	return dups, foreign, valid, torn, nil
}

// readResultsOf reads a sweep folder's results into memory, for the readers
// that draw every trial (plot): the manifest's trials, each once.
func readResultsOf(dir, path string, grid []gridPoint, cmd string, notes *[]string) (kept []*result.Result, dups int, torn bool, err error) {
	ix := newTrialIndex(grid)
	dups, foreign, _, torn, err := ix.scan(path, func(_ int, r *result.Result) error {
		kept = append(kept, r)
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	addNote(notes, foreignNote(cmd, path, foreign))
	return kept, dups, torn, nil
}

// writeSyncedStream is writeFileSynced for output written piece by piece
// (a merged results file), through the same rule for files balloc writes.
func writeSyncedStream(path string, write func(w io.Writer) error) error {
	o, err := files.NewRewrite("--out", path)
	if err != nil {
		return err
	}
	return o.Write(write)
}

// readCapped reads a file whole but at most limit+1 bytes of it (a file
// that grows while it is read ends too; files.OpenInput refuses anything but
// a regular file): a result longer than limit says the file passes the cap,
// and the caller names it.
func readCapped(path string, limit int) ([]byte, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}
