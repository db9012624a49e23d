package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pkg/profile"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/internal/files"
)

// profiler records one pprof profile or execution trace through pkg/profile
// and copies it into the output the user named when the run ends.
type profiler struct {
	stop func()
	from string // where pkg/profile writes
	to   *files.Output
	tmp  string
}

// startProfile starts the profile named by at most one of the three paths.
// pkg/profile records one kind at a time, so asking for two is an error,
// reported before any work, as is a path that cannot take the profile.
func startProfile(cpu, mem, trace string, force bool) (*profiler, error) {
	var mode func(*profile.Profile)
	var path, file, flag string
	n := 0
	for _, c := range []struct {
		path string
		mode func(*profile.Profile)
		file string
		flag string
	}{
		{cpu, profile.CPUProfile, "cpu.pprof", "cpuprofile"},
		{mem, profile.MemProfile, "mem.pprof", "memprofile"},
		{trace, profile.TraceProfile, "trace.out", "trace"},
	} {
		if c.path != "" {
			n++
			mode, path, file, flag = c.mode, c.path, c.file, c.flag
		}
	}
	switch {
	case n == 0:
		return &profiler{stop: func() {}}, nil
	case n > 1:
		return nil, fmt.Errorf("--cpuprofile, --memprofile and --trace each need a run of their own (pkg/profile records one at a time)")
	}
	out, err := newOutput("--"+flag, path, force)
	if err != nil {
		return nil, err
	}
	// pkg/profile writes a file of its own making; it is copied into the
	// output at the end, so that a device or FIFO is written in place and
	// a regular file replaced whole.
	tmp, err := os.MkdirTemp("", "balloc-profile-")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: no temporary folder for the profile: %v", flag, path, files.Cause(err))
	}
	p := profile.Start(mode, profile.ProfilePath(tmp), profile.Quiet, profile.NoShutdownHook)
	return &profiler{stop: p.Stop, from: filepath.Join(tmp, file), to: out, tmp: tmp}, nil
}

// finish stops the profile and writes it into its output.
func (p *profiler) finish() error {
	p.stop()
	if p.to == nil {
		return nil
	}
	defer os.RemoveAll(p.tmp)
	err := p.to.Write(func(w io.Writer) error {
		f, err := os.Open(p.from)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	if err != nil {
		return failure{fmt.Errorf("saving the profile to %s: %v", p.to.Path(), err)}
	}
	return nil
}

// sweepFiles are the files of a sweep folder: only sweep and merge write
// them.
var sweepFiles = []string{"manifest.json", "results.jsonl", sweep.LockName}

// newOutput is files.NewOutput, which refuses what no output may be (an
// input of the run, a folder, a path that cannot be created), and also
// refuses a file of a folder balloc's sweep or merge owns: those hold
// trials hours of work made.
func newOutput(flag, path string, force bool) (*files.Output, error) {
	dir, base := filepath.Split(path)
	for _, name := range sweepFiles {
		if base == name && sweep.OwnedFolder(dir) {
			return nil, fmt.Errorf("%s %s: it is a file of the sweep folder %s; write the output elsewhere", flag, path, filepath.Clean(dir))
		}
	}
	return files.NewOutput(flag, path, force)
}

// forceHelp is the help of --force, the same for every command that writes
// files.
const forceHelp = "replace output files that exist (an input of the run, a folder or a sweep's own files never are; devices and FIFOs are written in place)"
