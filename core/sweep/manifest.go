package sweep

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/klauspost/cpuid/v2"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
)

// Point is a grid point as a manifest records it.
type Point struct {
	SpecHash    string         `json:"spec_hash"`
	Process     string         `json:"process"`
	Params      map[string]any `json:"params"`
	Bins        uint64         `json:"bins"`
	Balls       uint64         `json:"balls"`
	Trials      int            `json:"trials"`
	Seed        uint64         `json:"seed"`
	Checkpoints uint64         `json:"checkpoints"`
	LogSpaced   bool           `json:"checkpoints_log,omitempty"` // --checkpoints log:K
	Engine      string         `json:"engine"`
	Alpha       float64        `json:"alpha"`
}

// Manifest describes a sweep's output folder.
type Manifest struct {
	Balloc    string  `json:"balloc_version"`
	Commit    string  `json:"commit"`
	Go        string  `json:"go"`
	Machine   Machine `json:"machine"`
	SweepFile string  `json:"sweep_file"`
	Source    string  `json:"sweep_source"`
	Shard     string  `json:"shard,omitempty"`
	Grid      []Point `json:"grid"`
}

// Machine is the computer a sweep ran on, as the manifest records it.
type Machine struct {
	CPU      string `json:"cpu"`
	Physical int    `json:"physical_cores"`
	Logical  int    `json:"logical_cores"`
	L2       int    `json:"l2_bytes"`
	L3       int    `json:"l3_bytes"`
	OS       string `json:"os"`
}

// NewManifest is the manifest of a sweep of grid g run by balloc version at
// commit on this machine; shard is "i/N" for one shard of it, else "".
func NewManifest(g *Grid, shard, version, commit string) *Manifest {
	m := &Manifest{
		Balloc: version, Commit: commit, Go: runtime.Version(),
		Machine: Machine{CPU: cpuid.CPU.BrandName, Physical: cpuid.CPU.PhysicalCores, Logical: cpuid.CPU.LogicalCores,
			L2: cpuid.CPU.Cache.L2, L3: cpuid.CPU.Cache.L3, OS: runtime.GOOS + "/" + runtime.GOARCH},
		SweepFile: g.Path, Source: g.Source, Shard: shard,
	}
	for i, s := range g.Specs {
		m.Grid = append(m.Grid, Point{
			SpecHash: g.Hashes[i], Process: s.Process.Name, Params: s.ParamsMap(), Bins: s.Bins, Balls: s.Balls,
			Trials: s.Trials, Seed: s.Seed, Checkpoints: s.Checkpoints, LogSpaced: s.CheckpointsLog, Engine: string(s.ResolvedEngine()), Alpha: s.Alpha,
		})
	}
	return m
}

// SameGrid reports whether two manifests describe the same grid points and
// trials (the machine, shard and file may differ).
func SameGrid(a, b *Manifest) bool {
	return slices.EqualFunc(a.Grid, b.Grid, func(x, y Point) bool {
		return x.SpecHash == y.SpecHash && x.Trials == y.Trials
	})
}

// CheckExtends says why a folder holding the sweep old cannot take the
// sweep new, or nil: new must keep every grid point of old (the same hash:
// the same definition) with at least its trials. New values and more trials
// are an extension; rerunning runs only what is new.
func CheckExtends(dir string, old, new *Manifest) error {
	at := map[string]int{}
	for _, gp := range new.Grid {
		at[gp.SpecHash] = gp.Trials
	}
	for _, gp := range old.Grid {
		trials, ok := at[gp.SpecHash]
		if !ok {
			for _, np := range new.Grid {
				if np.sameSettings(gp) {
					return fmt.Errorf("--out %s holds results of a different sweep: its grid point %s (%s) has the same settings in %s but another hash (%s): a file it reads has changed; use another folder",
						dir, gp.Describe(), gp.SpecHash, new.SweepFile, np.SpecHash)
				}
			}
			return fmt.Errorf("--out %s holds results of a different sweep: its grid point %s (%s) is not in %s (a value removed, or a setting or file: changed); use another folder",
				dir, gp.Describe(), gp.SpecHash, new.SweepFile)
		}
		if trials < gp.Trials {
			return fmt.Errorf("--out %s holds %d trials of %s (%s) and %s asks for %d; keep trials ≥ %d or use another folder",
				dir, gp.Trials, gp.Describe(), gp.SpecHash, new.SweepFile, trials, gp.Trials)
		}
	}
	return nil
}

// sameSettings reports whether two grid points have the same settings as a
// manifest records them, so that only what the hash alone sees (a file's
// content) can tell them apart.
func (gp Point) sameSettings(o Point) bool {
	return gp.Describe() == o.Describe() && gp.Seed == o.Seed && gp.Checkpoints == o.Checkpoints && gp.LogSpaced == o.LogSpaced &&
		gp.Engine == o.Engine && gp.Alpha == o.Alpha
}

// Describe names a grid point for a message.
func (gp Point) Describe() string {
	if len(gp.Params) == 0 {
		return fmt.Sprintf("%s n=%d m=%d", gp.Process, gp.Bins, gp.Balls)
	}
	return fmt.Sprintf("%s %s n=%d m=%d", gp.Process, ParamsText(gp.Params), gp.Bins, gp.Balls)
}

// maxManifest bounds a manifest: the sweep file it quotes (at most
// MaxGridFile) and at most MaxGridPoints points of a few
// hundred bytes each fit in well under 1 GiB.
const maxManifest = 1 << 30

// ReadManifest reads dir/manifest.json. A file that is not JSON, or JSON
// without balloc's marks (its version and a grid of hashed points), is an
// error: the folder is then not balloc's, and nothing in it is touched.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	data, err := files.ReadCapped(path, maxManifest)
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("%s: more than the %s a manifest may hold; not a manifest balloc wrote", path, units.FormatBytes(maxManifest))
	}
	// Decoding takes a few times the text.
	if mem := units.MemoryLimit(); mem.Bytes > 0 && units.Mul(uint64(len(data)), 4) > mem.Bytes {
		return nil, fmt.Errorf("%s: %s to decode, more than the %v", path, units.FormatBytes(float64(4*len(data))), mem)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a manifest balloc wrote (%v); balloc leaves %s as it is", path, err, dir)
	}
	if why := m.notBalloc(); why != "" {
		return nil, fmt.Errorf("%s: not a manifest balloc wrote (%s); balloc leaves %s as it is", path, why, dir)
	}
	// Readers loop over a point's trials and the grid's points: a manifest
	// edited beyond what a sweep file can ask for is refused here, before
	// any of them runs.
	if len(m.Grid) > MaxGridPoints {
		return nil, fmt.Errorf("%s: %d grid points, more than the %d a sweep may have", path, len(m.Grid), MaxGridPoints)
	}
	for i, gp := range m.Grid {
		if gp.Trials < 0 || core.TrialsRule(uint64(gp.Trials)) != "" {
			return nil, fmt.Errorf("%s: grid point %d (%s) has trials = %d; a sweep runs 1 to 2^31 trials a point", path, i, gp.Describe(), gp.Trials)
		}
	}
	return &m, nil
}

// notBalloc says why m is not a manifest balloc wrote, or "".
func (m *Manifest) notBalloc() string {
	if m.Balloc == "" {
		return "no balloc_version"
	}
	if len(m.Grid) == 0 {
		return "no grid"
	}
	for i, gp := range m.Grid {
		switch {
		case gp.SpecHash == "" || gp.Process == "":
			return fmt.Sprintf("grid point %d has no spec_hash or process", i+1)
		case gp.Bins == 0:
			return fmt.Sprintf("grid point %d has bins = 0; balloc's have at least 1", i+1)
		case gp.Trials < 1:
			return fmt.Sprintf("grid point %d has trials = %d; balloc's have at least 1", i+1, gp.Trials)
		}
	}
	return ""
}

// OwnedFolder reports whether dir holds a manifest balloc wrote.
func OwnedFolder(dir string) bool {
	if dir == "" {
		dir = "."
	}
	_, err := ReadManifest(dir)
	return err == nil
}

// CheckFolder refuses a folder a sweep or merge may not write into:
// one whose manifest.json is not balloc's, or that holds files but no
// manifest. A folder that does not exist, is empty, or holds only the
// lock file or temporary files of a run killed before its manifest was
// written is balloc's to fill. It returns the manifest found, if any.
func CheckFolder(flag, dir string) (*Manifest, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flag, dir, files.Cause(err))
	}
	m, err := ReadManifest(dir)
	switch {
	case err == nil:
		return m, nil
	case !os.IsNotExist(err):
		return nil, err
	}
	for _, e := range entries {
		if n := e.Name(); n != LockName && !IsTempName(n) {
			return nil, fmt.Errorf("%s %s is not empty (it holds %s) and holds no sweep; use a new or empty folder", flag, dir, n)
		}
	}
	return nil, nil
}

// IsTempName reports whether a file name is that of a temporary file
// balloc makes beside an output (files.Output; older versions named them
// .NAME.*.tmp).
func IsTempName(n string) bool {
	return strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp")
}

// Write writes the manifest into dir/manifest.json, replacing it whole.
func (m *Manifest) Write(dir string) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeFileSynced(filepath.Join(dir, "manifest.json"), append(b, '\n'))
}

// writeFileSynced replaces a file of a folder balloc owns (its manifest, a
// merge's results) whole, as files.Output does: a reader sees the old file
// or the new one, never half.
func writeFileSynced(path string, data []byte) error {
	o, err := files.NewRewrite("--out", path)
	if err != nil {
		return err
	}
	return o.WriteFile(data)
}

// ParamsText writes parameters as "k=v" pairs in key order, as balloc's
// messages and tables name a grid point.
func ParamsText(m map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}
