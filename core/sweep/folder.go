package sweep

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/files"
)

// Results files are read one line at a time (ScanResults): what a
// reader keeps grows with the trials of the grid, never with the size of a
// line. TrialIndex is that per-trial part: for each (grid point, trial) seen,
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

// TrialIndex checks the results files of one grid as they are read: each
// (grid point, trial) is kept once, an identical copy of a line (timings
// aside) is a duplicate, a different result for one trial is an error.
type TrialIndex struct {
	grid   []Point
	points map[string]int // spec hash → index in grid
	seen   map[trialKey]trialSeen
	paths  []string // the results files scanned, by src
}

// NewTrialIndex is an empty index of the trials of grid.
func NewTrialIndex(grid []Point) *TrialIndex {
	ix := &TrialIndex{grid: grid, points: make(map[string]int, len(grid)), seen: map[trialKey]trialSeen{}}
	for i, gp := range grid {
		ix.points[gp.SpecHash] = i
	}
	return ix
}

// Scan reads the results file path. keep is called with each record that
// is a trial of the grid seen for the first time (in any file scanned), and
// its point's index; lines of another grid, or beyond a point's trials, are
// counted in foreign and left out. It also returns the file's valid length
// and whether it ends in a torn line (ScanResults).
func (ix *TrialIndex) Scan(path string, keep func(p int, r *result.Result) error) (dups, foreign int, valid int64, torn bool, err error) {
	src := len(ix.paths)
	ix.paths = append(ix.paths, path)
	valid, torn, err = ScanResults(path, func(line int, off int64, raw []byte, r *result.Result) error {
		p, ok := ix.points[r.SpecHash]
		if !ok || r.Trial >= uint64(ix.grid[p].Trials) {
			foreign++
			return nil
		}
		key := trialKey{p, r.Trial}
		sum := sha256.Sum256([]byte(WithoutTiming(r)))
		if prev, ok := ix.seen[key]; ok {
			if prev.sum == sum {
				dups++
				return nil
			}
			if prev.src == src {
				return fmt.Errorf("%s: lines %d and %d hold different results for trial %d of %s (%s); remove the wrong one",
					path, prev.line, line, r.Trial, ix.grid[p].Describe(), r.SpecHash)
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

// readTrials reads a results file of grid into memory, for the readers
// that draw every trial (plot): the manifest's trials, each once.
func readTrials(path string, grid []Point, cmd string, notes *[]string) (kept []*result.Result, dups int, torn bool, err error) {
	ix := NewTrialIndex(grid)
	dups, foreign, _, torn, err := ix.Scan(path, func(_ int, r *result.Result) error {
		kept = append(kept, r)
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	AddNote(notes, ForeignNote(cmd, path, foreign))
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

// Folder is a sweep folder read back whole, for the readers that draw
// every trial (plot): its manifest and results, each (grid point, trial)
// once. Summaries and merges stream instead (TrialIndex).
type Folder struct {
	Dir      string
	Manifest *Manifest
	Results  []*result.Result
	Torn     bool // the results file ends in a torn line, left out
	Dups     int  // identical copies of a line, dropped
}

// ReadFolder reads a sweep folder. Lines outside the manifest's grid are
// left out with one warning added to notes (named for cmd; the caller
// prints them once nothing more can fail, so a refusal stays one line);
// identical copies of a line count once; two different results for one
// trial are an error.
func ReadFolder(dir, cmd string, notes *[]string) (*Folder, error) {
	man, err := FolderManifest(dir)
	if err != nil {
		return nil, err
	}
	kept, dups, torn, err := readTrials(filepath.Join(dir, "results.jsonl"), man.Grid, cmd, notes)
	if err != nil {
		return nil, err
	}
	return &Folder{Dir: dir, Manifest: man, Results: kept, Torn: torn, Dups: dups}, nil
}

// FolderManifest reads the manifest of a folder that must hold a sweep.
func FolderManifest(dir string) (*Manifest, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no manifest.json: not a folder balloc sweep wrote", dir)
		}
		return nil, err
	}
	return man, nil
}

// AddNote adds note to notes unless it is "" or notes is nil.
func AddNote(notes *[]string, note string) {
	if note != "" && notes != nil {
		*notes = append(*notes, note)
	}
}

// ForeignNote says, in one line, that lines outside the grid were ignored,
// or is "" when none were.
func ForeignNote(cmd, path string, foreign int) string {
	if foreign == 0 {
		return ""
	}
	return fmt.Sprintf("balloc %s: %s: %d lines are not trials of this sweep's grid (another sweep's, or beyond its trials); they are ignored", cmd, path, foreign)
}

// ByPoint groups results by grid point, in the manifest's order, each
// sorted by trial.
func (sd *Folder) ByPoint() [][]*result.Result {
	out := make([][]*result.Result, len(sd.Manifest.Grid))
	at := map[string]int{}
	for i, g := range sd.Manifest.Grid {
		at[g.SpecHash] = i
	}
	for _, r := range sd.Results {
		if i, ok := at[r.SpecHash]; ok {
			out[i] = append(out[i], r)
		}
	}
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b *result.Result) int { return cmp.Compare(a.Trial, b.Trial) })
	}
	return out
}

// WithoutTiming is a result's JSON with the timing fields zeroed: what two
// runs of the same trial must agree on.
func WithoutTiming(r *result.Result) string {
	c := *r
	c.ElapsedS, c.BallsPerS = 0, 0
	b, _ := json.Marshal(&c)
	return string(b)
}
