package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/internal/progress"
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
	if sr != nil && sr.Run != nil {
		defer sr.Release()
	}
	if err != nil {
		return err
	}
	if err := sr.CheckMemory(sr.workers); err != nil {
		return err
	}
	if sr.Jobs.Total() > math.MaxInt {
		return fmt.Errorf("the sweep has %d trials to run; at most %d in one run (use --shard)", sr.Jobs.Total(), math.MaxInt)
	}
	printNotes(stderr, sr.Notes)
	if err := sr.Manifest.Write(sr.Out); err != nil {
		return failure{err}
	}
	rw, err := deps.open(sr.ResultsPath, sr.Valid)
	if err != nil {
		return failure{err}
	}
	defer rw.Close()
	written, err := sr.run(rw, deps, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d trials run, %d were already there; %d grid points\n", sr.ResultsPath, written, sr.Before, len(sr.Grid.Specs))
	return nil
}

// openSweep reads the sweep file and the flags, takes the output folder's
// lock and reads the trials it already holds (sweep.Open). The lock, once
// taken, is returned with any error, for the caller to release.
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
	sr := &sweepRun{workers: concurrency.Workers(int(w))}
	if sr.bar, err = progress.Want(fl.progress, stderr); err != nil {
		return nil, err
	}
	sr.Run, err = sweep.Open(g, file, fl.out, si, sn, Version, buildCommit())
	return sr, err
}

// sweepRun is a sweep opened (sweep.Run) with the workers that run it.
type sweepRun struct {
	*sweep.Run
	workers int
	bar     progress.Form
}

// run runs the jobs on the workers and appends each result, in order, to
// rw; it returns the number of trials run. The first failed write (a full
// disk) stops the sweep: trials not yet started are not run, and the lines
// written so far stay whole.
func (sr *sweepRun) run(rw resultAppender, deps sweepDeps, stderr io.Writer) (int, error) {
	njobs := int(sr.Jobs.Total())
	var pb *progress.Meter
	if sr.bar != progress.None {
		pb = progress.Trials(sr.bar, stderr, njobs, "sweep")
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
			written, njobs, sr.ResultsPath, sr.Before)
	})
	concurrency.Ordered(njobs, sr.workers, func(i int) *result.Result {
		p, trial := sr.Jobs.At(uint64(i))
		r := deps.trial(sr.Grid.Specs[p], trial)
		r.SpecHash = sr.Grid.Hashes[p]
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
