package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/klauspost/cpuid/v2"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

// Version is balloc's version; commit is set at build time by the Makefile
// (-ldflags "-X main.commit=...") or read from the build info.
const Version = "0.3.0"

var commit = ""

func buildCommit() string {
	if commit != "" {
		return commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// gridPoint is a grid point as a manifest records it.
type gridPoint struct {
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

// manifest describes a sweep's output folder.
type manifest struct {
	Balloc    string      `json:"balloc_version"`
	Commit    string      `json:"commit"`
	Go        string      `json:"go"`
	Machine   machine     `json:"machine"`
	SweepFile string      `json:"sweep_file"`
	Source    string      `json:"sweep_source"`
	Shard     string      `json:"shard,omitempty"`
	Grid      []gridPoint `json:"grid"`
}

type machine struct {
	CPU      string `json:"cpu"`
	Physical int    `json:"physical_cores"`
	Logical  int    `json:"logical_cores"`
	L2       int    `json:"l2_bytes"`
	L3       int    `json:"l3_bytes"`
	OS       string `json:"os"`
}

func newManifest(g *sweep.Grid, shard string) *manifest {
	m := &manifest{
		Balloc: Version, Commit: buildCommit(), Go: runtime.Version(),
		Machine: machine{CPU: cpuid.CPU.BrandName, Physical: cpuid.CPU.PhysicalCores, Logical: cpuid.CPU.LogicalCores,
			L2: cpuid.CPU.Cache.L2, L3: cpuid.CPU.Cache.L3, OS: runtime.GOOS + "/" + runtime.GOARCH},
		SweepFile: g.Path, Source: g.Source, Shard: shard,
	}
	for i, s := range g.Specs {
		m.Grid = append(m.Grid, gridPoint{
			SpecHash: g.Hashes[i], Process: s.Process.Name, Params: s.ParamsMap(), Bins: s.Bins, Balls: s.Balls,
			Trials: s.Trials, Seed: s.Seed, Checkpoints: s.Checkpoints, LogSpaced: s.CheckpointsLog, Engine: string(s.ResolvedEngine()), Alpha: s.Alpha,
		})
	}
	return m
}

// sameGrid reports whether two manifests describe the same grid points and
// trials (the machine, shard and file may differ).
func sameGrid(a, b *manifest) bool {
	return slices.EqualFunc(a.Grid, b.Grid, func(x, y gridPoint) bool {
		return x.SpecHash == y.SpecHash && x.Trials == y.Trials
	})
}

// checkExtends says why a folder holding the sweep old cannot take the
// sweep new, or nil: new must keep every grid point of old (the same hash:
// the same definition) with at least its trials. New values and more trials
// are an extension; rerunning runs only what is new.
func checkExtends(dir string, old, new *manifest) error {
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
						dir, gp.describe(), gp.SpecHash, new.SweepFile, np.SpecHash)
				}
			}
			return fmt.Errorf("--out %s holds results of a different sweep: its grid point %s (%s) is not in %s (a value removed, or a setting or file: changed); use another folder",
				dir, gp.describe(), gp.SpecHash, new.SweepFile)
		}
		if trials < gp.Trials {
			return fmt.Errorf("--out %s holds %d trials of %s (%s) and %s asks for %d; keep trials ≥ %d or use another folder",
				dir, gp.Trials, gp.describe(), gp.SpecHash, new.SweepFile, trials, gp.Trials)
		}
	}
	return nil
}

// sameSettings reports whether two grid points have the same settings as a
// manifest records them, so that only what the hash alone sees (a file's
// content) can tell them apart.
func (gp gridPoint) sameSettings(o gridPoint) bool {
	return gp.describe() == o.describe() && gp.Seed == o.Seed && gp.Checkpoints == o.Checkpoints && gp.LogSpaced == o.LogSpaced &&
		gp.Engine == o.Engine && gp.Alpha == o.Alpha
}

// describe names a grid point for a message.
func (gp gridPoint) describe() string {
	if len(gp.Params) == 0 {
		return fmt.Sprintf("%s n=%d m=%d", gp.Process, gp.Bins, gp.Balls)
	}
	return fmt.Sprintf("%s %s n=%d m=%d", gp.Process, paramsText(gp.Params), gp.Bins, gp.Balls)
}

// maxManifest bounds a manifest: the sweep file it quotes (at most
// sweep.MaxGridFile) and at most sweep.MaxGridPoints points of a few
// hundred bytes each fit in well under 1 GiB.
const maxManifest = 1 << 30

func readManifest(dir string) (*manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	data, err := readCapped(path, maxManifest)
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
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// Readers loop over a point's trials and the grid's points: a manifest
	// edited beyond what a sweep file can ask for is refused here, before
	// any of them runs.
	if len(m.Grid) > sweep.MaxGridPoints {
		return nil, fmt.Errorf("%s: %d grid points, more than the %d a sweep may have", path, len(m.Grid), sweep.MaxGridPoints)
	}
	for i, gp := range m.Grid {
		if gp.Trials < 0 || core.TrialsRule(uint64(gp.Trials)) != "" {
			return nil, fmt.Errorf("%s: grid point %d (%s) has trials = %d; a sweep runs 1 to 2^31 trials a point", path, i, gp.describe(), gp.Trials)
		}
	}
	return &m, nil
}

// writeFileSynced writes data to path through a temporary file of a unique
// name in the same folder, synced, then renamed over path, so a reader sees
// the old file or the new one, never half, and two writers never share a
// temporary file.
func writeFileSynced(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync() // the rename itself; a folder that cannot sync is no error
		d.Close()
	}
	return nil
}

func (m *manifest) write(dir string) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeFileSynced(filepath.Join(dir, "manifest.json"), append(b, '\n'))
}
