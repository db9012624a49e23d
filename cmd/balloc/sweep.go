package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

func newSweepCommand(stdout, stderr io.Writer) *cobra.Command {
	var out, shard, workers, progress string
	c := &cobra.Command{
		Use:   "sweep FILE.toml [--out DIR] [--shard i/N]",
		Short: "Run a grid of experiments from a TOML file; results survive interruption and resume",
		Long: "Run every trial of the grid a TOML file names, in parallel, appending each result to\n" +
			"DIR/results.jsonl (one synced line per trial) beside DIR/manifest.json. Run the same command\n" +
			"again to finish an interrupted sweep: trials already in results.jsonl are skipped; after\n" +
			"raising trials or adding values, only the new trials run. A run locks DIR (DIR/sweep.lock)\n" +
			"for its whole length; a second run on DIR is refused. A file may hold [[grid]] blocks, each a\n" +
			"grid of its own over the top level's keys (per-block balls and trials: README, Sweeps).\n" +
			"--shard i/N runs a deterministic 1/N of the trials (default: from SLURM_ARRAY_TASK_ID and\n" +
			"SLURM_ARRAY_TASK_COUNT when set).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runSweep(args[0], sweepFlags{out, shard, workers, progress}, stdout, stderr, sweepDeps{})
		},
	}
	c.Flags().StringVar(&out, "out", "", "output folder (default: the file's name without .toml)")
	c.Flags().StringVar(&shard, "shard", "", "i/N: run the trials whose index is i mod N")
	c.Flags().StringVar(&workers, "workers", "0", "trials run in parallel (0: one per CPU)")
	c.Flags().StringVar(&progress, "progress", "auto", "progress on stderr: auto (a bar on a terminal, else a line every 30 s), always (a bar) or never")
	return c
}

// parseShard reads i/N, or the Slurm array variables when s is empty.
func parseShard(s string) (i, n uint64, err error) {
	if s == "" {
		id, count := os.Getenv("SLURM_ARRAY_TASK_ID"), os.Getenv("SLURM_ARRAY_TASK_COUNT")
		if id == "" || count == "" {
			return 0, 1, nil
		}
		s = id + "/" + count
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(a, 10, 64)
	n, err2 := strconv.ParseUint(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || n < 1 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N", s)
	}
	return i, n, nil
}

// sweepFlags are the flags of balloc sweep, as given.
type sweepFlags struct{ out, shard, workers, progress string }

// resultAppender appends results to a sweep's results file.
type resultAppender interface {
	Write(r *result.Result) error
	Close() error
}

// sweepDeps are what a sweep writes with and runs trials with; the zero
// value is the real thing, and tests pass their own (a full disk, a count
// of trials run).
type sweepDeps struct {
	open  func(path string, valid int64) (resultAppender, error)
	trial func(s *core.Spec, trial uint64) *result.Result
}

// sweepRun is a sweep checked and ready to run: its folder locked, its
// manifest made, the trials already done read.
type sweepRun struct {
	g           *sweep.Grid
	man         *sweep.Manifest
	out         string
	resultsPath string
	lock        *sweep.Lock
	jobs        *sweep.Jobs
	workers     int
	bar         progressForm
	before      int   // trials already there
	valid       int64 // the results file's length without a torn last line
	notes       []string
}

// runSweep runs the trials of a sweep file that its folder does not hold
// yet, appending each result as one synced line; interrupted, the same
// command resumes.
func runSweep(file string, fl sweepFlags, stdout, stderr io.Writer, deps sweepDeps) error {
	if deps.open == nil {
		deps.open = func(path string, valid int64) (resultAppender, error) { return sweep.AppendResults(path, valid) }
	}
	if deps.trial == nil {
		deps.trial = func(s *core.Spec, t uint64) *result.Result { return engine.RunTrial(s, t, nil) }
	}
	sr, err := openSweep(file, fl, stderr)
	if sr != nil && sr.lock != nil {
		defer sr.lock.Release()
	}
	if err != nil {
		return err
	}
	if err := sr.checkMemory(); err != nil {
		return err
	}
	if sr.jobs.Total() > math.MaxInt {
		return fmt.Errorf("the sweep has %d trials to run; at most %d in one run (use --shard)", sr.jobs.Total(), math.MaxInt)
	}
	printNotes(stderr, sr.notes)
	if err := sr.man.Write(sr.out); err != nil {
		return failure{err}
	}
	rw, err := deps.open(sr.resultsPath, sr.valid)
	if err != nil {
		return failure{err}
	}
	defer rw.Close()
	written, err := sr.run(rw, deps, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d trials run, %d were already there; %d grid points\n", sr.resultsPath, written, sr.before, len(sr.g.Specs))
	return nil
}

// openSweep reads the sweep file and the flags, takes the output folder's
// lock and reads the trials it already holds. The lock, once taken, is
// returned with any error, for the caller to release.
func openSweep(file string, fl sweepFlags, stderr io.Writer) (*sweepRun, error) {
	g, err := sweep.ReadGrid(file)
	if err != nil {
		return nil, err
	}
	si, sn, err := parseShard(fl.shard)
	if err != nil {
		return nil, err
	}
	w, err := parseCountFlag("workers", fl.workers)
	if err != nil {
		return nil, err
	}
	sr := &sweepRun{g: g, out: fl.out, workers: concurrency.Workers(int(w))}
	if sr.out == "" {
		sr.out = strings.TrimSuffix(file, filepath.Ext(file))
	}
	shardText := ""
	if sn > 1 {
		shardText = fmt.Sprintf("%d/%d", si, sn)
	}
	if sr.bar, err = wantBar(fl.progress, stderr); err != nil {
		return nil, err
	}
	sr.man = sweep.NewManifest(g, shardText, Version, buildCommit())
	if err := sr.lockFolder(); err != nil {
		return sr, err
	}
	return sr, sr.readDone(si, sn)
}

// lockFolder makes and locks the output folder and checks that what it
// holds is an earlier run of this sweep, or nothing. A folder that is not
// balloc's is left as it is: nothing is made, locked or written there.
func (sr *sweepRun) lockFolder() error {
	out := sr.out
	if _, err := sweep.CheckFolder("--out", out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	// The lock comes before the manifest is read or written and is held to
	// the end: two runs on one folder would interleave their lines.
	var err error
	if sr.lock, err = sweep.LockFolder(out, "sweep"); err != nil {
		return err
	}
	if old, err := sweep.ReadManifest(out); err == nil {
		if err := sweep.CheckExtends(out, old, sr.man); err != nil {
			return err
		}
		if old.Shard != sr.man.Shard {
			return fmt.Errorf("--out %s holds shard %q, not %q", out, old.Shard, sr.man.Shard)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	return nil
}

// readDone reads the trials already done, one line at a time (what is
// kept grows with the trials, not the file: sweep.TrialIndex), and lists
// this shard's trials still to run, lazily (sweep.Jobs).
func (sr *sweepRun) readDone(si, sn uint64) error {
	sr.resultsPath = filepath.Join(sr.out, "results.jsonl")
	done := make([][]uint64, len(sr.g.Specs))
	_, foreign, valid, torn, err := sweep.NewTrialIndex(sr.man.Grid).Scan(sr.resultsPath, func(p int, r *result.Result) error {
		done[p] = append(done[p], r.Trial)
		sr.before++
		return nil
	})
	if err != nil {
		return err
	}
	sr.valid = valid
	// Said once every check has passed, so that a refusal stays one line.
	if torn {
		sr.notes = append(sr.notes, fmt.Sprintf("balloc sweep: %s ended in a torn line (a run was killed); it is dropped and its trial run again", sr.resultsPath))
	}
	sweep.AddNote(&sr.notes, sweep.ForeignNote("sweep", sr.resultsPath, foreign))
	sr.jobs = sweep.NewJobs(sr.g, si, sn, done)
	return nil
}

// checkMemory refuses a sweep whose largest trial, times the workers,
// would not fit, naming what drives its size.
func (sr *sweepRun) checkMemory() error {
	var per units.Footprint
	perPoint := 0
	for p, s := range sr.g.Specs {
		if f := engine.Footprint(s); f.Bytes > per.Bytes || p == 0 {
			per, perPoint = f, p
		}
	}
	mem := units.MemoryLimit()
	if mem.Bytes == 0 || sr.jobs.Total() == 0 {
		return nil
	}
	avail := mem.Bytes
	at := min(uint64(sr.workers), sr.jobs.Total())
	s := sr.g.Specs[perPoint]
	what := fmt.Sprintf("the sweep's largest trial (%s %s) needs %s, mostly for %s", s.Process.Name, s.ParamsText(), units.FormatBytes(float64(per.Bytes)), per.Culprit)
	switch {
	case per.Bytes > avail:
		return fmt.Errorf("%s, more than the %v: %s", what, mem, per.Hint)
	case units.Mul(per.Bytes, at) > avail:
		return fmt.Errorf("%s; %d at once exceed the %v: use --workers %d (or %s)", what, at, mem, avail/per.Bytes, per.Hint)
	}
	return nil
}

// run runs the jobs on the workers and appends each result, in order, to
// rw; it returns the number of trials run. The first failed write (a full
// disk) stops the sweep: trials not yet started are not run, and the lines
// written so far stay whole.
func (sr *sweepRun) run(rw resultAppender, deps sweepDeps, stderr io.Writer) (int, error) {
	njobs := int(sr.jobs.Total())
	var pb *meter
	if sr.bar != noProgress {
		pb = newTrialsBar(sr.bar, stderr, njobs, "sweep")
	}
	var writeErr error
	written := 0
	// Ctrl-C: every trial written is a whole synced line, so say how many
	// and that the same command resumes from them.
	intr := onInterrupt(stderr, func() string {
		if pb != nil {
			_ = pb.Clear()
		}
		return fmt.Sprintf("balloc sweep: interrupted: %d of %d trials saved in %s (%d were there before); run the same command to resume",
			written, njobs, sr.resultsPath, sr.before)
	})
	concurrency.Ordered(njobs, sr.workers, func(i int) *result.Result {
		p, trial := sr.jobs.At(uint64(i))
		r := deps.trial(sr.g.Specs[p], trial)
		r.SpecHash = sr.g.Hashes[p]
		return r
	}, func(i int, r *result.Result) bool {
		intr.mu.Lock()
		defer intr.mu.Unlock()
		if writeErr = rw.Write(r); writeErr != nil {
			return false
		}
		written++
		if pb != nil {
			_ = pb.Add(1)
		}
		return true
	})
	intr.stop()
	if pb != nil {
		_ = pb.Finish()
	}
	if writeErr != nil {
		return written, failure{fmt.Errorf("%v; stopped after %d of %d trials (those are kept): make room and run the same command to resume", writeErr, written, njobs)}
	}
	return njobs, nil
}
