package main

import (
	"errors"
	"fmt"
	"io/fs"
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
	if err := checkWritable(flag, path); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	tmp, err := os.MkdirTemp(dir, ".balloc-profile-")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: cannot write a profile there: %v", flag, path, cause(err))
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

// checkWritable refuses, before any work, an output file the run could not
// write at the end: a directory, a file it may not open for writing, or a
// place where no file can be made (/proc, a read-only or missing folder
// that cannot be created). It leaves nothing behind: a file that exists is
// opened without truncating, and a probe made to test a folder is removed.
func checkWritable(flag, path string) error {
	fail := func(why string) error { return fmt.Errorf("--%s %s: %s", flag, path, why) }
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fail("is a directory; want a file")
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fail(fmt.Sprintf("cannot be written: %v", cause(err)))
		}
		return f.Close()
	}
	// The nearest folder that exists must take a new file: the missing
	// ones below it are made there when the run ends.
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fail(fmt.Sprintf("%s is not a folder", dir))
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fail("no folder of it exists")
		}
		dir = parent
	}
	probe, err := os.CreateTemp(dir, ".balloc-probe-")
	if err != nil {
		return fail(fmt.Sprintf("cannot create a file in %s: %v", dir, cause(err)))
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// cause is the system's reason inside a path error.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
