package sweep

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/result"
)

// Merge is a merge of the folders of a sharded sweep, checked and with its
// output folder locked, not yet written. It reads the results files in two
// passes, one line at a time: OpenMerge checks every line and indexes the
// first copy of each trial (TrialIndex: about 100 bytes a trial), Write
// reads those lines back by offset in the manifest's order and writes them.
// Its memory grows with the trials of the grid, not with the size of the
// files.
type Merge struct {
	Out     string   // the merged folder
	Inputs  int      // the folders merged (patterns expanded)
	Kept    int      // trials found, each once
	Total   int      // trials the grid plans
	Dups    int      // identical copies of a line, kept once
	Missing []string // per grid point with trials missing: the point and the trials
	Notes   []string // warnings to print before writing (lines ignored, torn ends)

	first   *Manifest
	ix      *TrialIndex
	present [][]uint64 // each point's trials present, ascending
	lock    *Lock
}

// mergeInput is one folder of a merge.
type mergeInput struct {
	dir  string
	man  *Manifest
	torn bool
}

// OpenMerge checks a merge of the folders args (patterns expanded as
// ExpandFolders does) into out and takes out's lock; every refusal comes
// here, before anything is written. The caller calls Close.
func OpenMerge(args []string, out string) (*Merge, error) {
	dirs, err := ExpandFolders(args)
	if err != nil {
		return nil, err
	}
	m := &Merge{Out: out, Inputs: len(dirs)}
	all, err := m.scanInputs(dirs)
	if err != nil {
		return nil, err
	}
	m.first = all[0].man
	// The merged folder: new, empty, or holding this sweep already (an
	// earlier merge), whose results then join the merge, so nothing there
	// is lost.
	if err := checkMergeOut(out, m.first); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %v", out, err)
	}
	if m.lock, err = LockFolder(out, "merge"); err != nil {
		return nil, err
	}
	if all, err = m.joinOut(all); err != nil {
		m.Close()
		return nil, err
	}
	for _, f := range all {
		if f.torn {
			m.Notes = append(m.Notes, fmt.Sprintf("balloc merge: %s ends in a torn line; it is ignored", filepath.Join(f.dir, "results.jsonl")))
		}
	}
	m.countMissing()
	return m, nil
}

// scanInputs reads and checks each input folder: not the output, one grid
// for all.
func (m *Merge) scanInputs(dirs []string) ([]mergeInput, error) {
	outInfo, outErr := os.Stat(m.Out)
	var all []mergeInput
	for _, d := range dirs {
		if filepath.Clean(d) == filepath.Clean(m.Out) {
			return nil, fmt.Errorf("--out %s is also an input", m.Out)
		}
		if fi, err := os.Stat(d); err == nil && outErr == nil && os.SameFile(fi, outInfo) {
			return nil, fmt.Errorf("--out %s is also an input (as %s)", m.Out, d)
		}
		man, err := FolderManifest(d)
		if err != nil {
			return nil, err
		}
		if len(all) > 0 && !SameGrid(all[0].man, man) {
			return nil, fmt.Errorf("%s holds another sweep than %s (another grid or number of trials)", d, all[0].dir)
		}
		if m.ix == nil {
			m.ix = NewTrialIndex(man.Grid)
		}
		f := mergeInput{dir: d, man: man}
		if err := m.scan(&f); err != nil {
			return nil, err
		}
		all = append(all, f)
	}
	return all, nil
}

// joinOut checks the locked output folder again, as it is now that it is
// ours, and adds the results it already holds to the merge.
func (m *Merge) joinOut(all []mergeInput) ([]mergeInput, error) {
	if err := checkMergeOut(m.Out, m.first); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(m.Out, "manifest.json")); err != nil {
		return all, nil
	}
	man, err := FolderManifest(m.Out)
	if err != nil {
		return nil, err
	}
	f := mergeInput{dir: m.Out, man: man}
	if err := m.scan(&f); err != nil {
		return nil, err
	}
	return append(all, f), nil
}

// scan indexes one folder's results file.
func (m *Merge) scan(f *mergeInput) error {
	path := filepath.Join(f.dir, "results.jsonl")
	d, foreign, _, torn, err := m.ix.Scan(path, func(int, *result.Result) error {
		m.Kept++
		return nil
	})
	if err != nil {
		return err
	}
	AddNote(&m.Notes, ForeignNote("merge", path, foreign))
	f.torn, m.Dups = torn, m.Dups+d
	return nil
}

// countMissing lists each point's trials present, ascending (the order of
// the merged file), and the points with trials missing.
func (m *Merge) countMissing() {
	m.present = make([][]uint64, len(m.first.Grid))
	for k := range m.ix.seen {
		m.present[k.point] = append(m.present[k.point], k.trial)
	}
	for p, gp := range m.first.Grid {
		slices.Sort(m.present[p])
		m.Total += gp.Trials
		if lost := missingTrials(m.present[p], uint64(gp.Trials)); lost != "" {
			m.Missing = append(m.Missing, fmt.Sprintf("%s (spec %s): trials %s", gp.Describe(), gp.SpecHash, lost))
		}
	}
}

// Write writes the merged folder: the manifest (without a shard) and the
// results, each trial's first line in the manifest's order and by trial.
func (m *Merge) Write() error {
	man := *m.first
	man.Shard = ""
	if err := man.Write(m.Out); err != nil {
		return err
	}
	return writeMerged(filepath.Join(m.Out, "results.jsonl"), m.ix, m.present)
}

// Close releases the output folder's lock.
func (m *Merge) Close() {
	if m.lock != nil {
		m.lock.Release()
	}
}

// maxListedMissing bounds the trials a merge lists as missing for one grid
// point; the rest are counted.
const maxListedMissing = 1000

// missingTrials lists the trials below trials absent from present (sorted,
// each below trials), as "3,5,9": the first maxListedMissing of them, then
// how many more; "" when none is missing.
func missingTrials(present []uint64, trials uint64) string {
	if uint64(len(present)) == trials {
		return ""
	}
	var lost []string
	next := uint64(0) // the next trial not yet accounted for
	for i := 0; i <= len(present) && len(lost) < maxListedMissing; i++ {
		upto := trials // after the last trial present, the gap up to trials
		if i < len(present) {
			upto = present[i]
		}
		for ; next < upto && len(lost) < maxListedMissing; next++ {
			lost = append(lost, strconv.FormatUint(next, 10))
		}
		next = upto + 1
	}
	text := strings.Join(lost, ",")
	if n := trials - uint64(len(present)); n > uint64(len(lost)) {
		text += fmt.Sprintf(" and %d more", n-uint64(len(lost)))
	}
	return text
}

// writeMerged writes the merged results file: each trial's first line, in
// the manifest's order and by trial, read back from where the index found
// it and written as balloc writes a result (decoded, then encoded).
func writeMerged(path string, ix *TrialIndex, present [][]uint64) error {
	files := make([]*os.File, len(ix.paths))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	var buf []byte
	return writeSyncedStream(path, func(w io.Writer) error {
		for p, trials := range present {
			for _, t := range trials {
				at := ix.seen[trialKey{p, t}]
				if files[at.src] == nil {
					f, err := os.Open(ix.paths[at.src])
					if err != nil {
						return err
					}
					files[at.src] = f
				}
				buf = slices.Grow(buf[:0], at.size)[:at.size]
				if _, err := files[at.src].ReadAt(buf, at.off); err != nil {
					return fmt.Errorf("%s: %v (changed while merging?)", ix.paths[at.src], err)
				}
				var r result.Result
				if err := json.Unmarshal(buf[:at.size-1], &r); err != nil {
					return fmt.Errorf("%s:%d: changed while merging: %v", ix.paths[at.src], at.line, err)
				}
				line, err := result.Encode(&r)
				if err != nil {
					return err
				}
				if _, err := w.Write(append(line, '\n')); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// checkMergeOut refuses a merge's --out folder unless it does not exist, is
// empty (but for its lock file) or holds the sweep man describes.
func checkMergeOut(out string, man *Manifest) error {
	old, err := CheckFolder("--out", out)
	if err == nil && old != nil && !SameGrid(old, man) {
		return fmt.Errorf("--out %s holds another sweep (another grid or number of trials) than the folders merged; use a new or empty folder", out)
	}
	return err
}

// ExpandFolders is merge's folder arguments with patterns expanded: an
// argument that is no path but holds *, ? or [ is a shell pattern
// (filepath.Match) that balloc expands itself, in the natural order of the
// numbers in the names (shard-2 before shard-10). So a job script passes
// 'DIR/shard-*' however many shards there are, and its command line stays
// within the system's argument limit (balloc slurm's merge job).
func ExpandFolders(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Lstat(a); err == nil || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: not a folder, and not a pattern: %v", a, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no folder matches", a)
		}
		slices.SortFunc(m, NaturalCompare)
		out = append(out, m...)
	}
	return out, nil
}

// NaturalCompare orders strings with their runs of digits compared as
// numbers.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digitRun is the length of the run of decimal digits s starts with.
func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
