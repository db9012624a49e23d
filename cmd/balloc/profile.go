package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pkg/profile"
)

// profiler records one pprof profile or execution trace through pkg/profile
// and moves it to the path the user named when the run ends.
type profiler struct {
	stop func()
	from string // where pkg/profile writes
	to   string // where the user wants it
	tmp  string
}

// startProfile starts the profile named by at most one of the three paths.
// pkg/profile records one kind at a time, so asking for two is an error,
// reported before any work.
func startProfile(cpu, mem, trace string) (*profiler, error) {
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
	dir := filepath.Dir(path)
	tmp, err := os.MkdirTemp(dir, ".balloc-profile-")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: cannot write a profile there: %v", flag, path, err)
	}
	p := profile.Start(mode, profile.ProfilePath(tmp), profile.Quiet, profile.NoShutdownHook)
	return &profiler{stop: p.Stop, from: filepath.Join(tmp, file), to: path, tmp: tmp}, nil
}

// finish stops the profile and moves it into place.
func (p *profiler) finish() error {
	p.stop()
	if p.to == "" {
		return nil
	}
	defer os.RemoveAll(p.tmp)
	if err := os.Rename(p.from, p.to); err != nil {
		return failure{fmt.Errorf("saving the profile: %v", err)}
	}
	return nil
}
