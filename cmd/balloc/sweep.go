package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
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
	c.Flags().StringVar(&progress, "progress", "auto", "progress bar on stderr: auto, always or never")
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

// shardOf is the shard trial t of the grid point with hash h runs in:
// consecutive trials of a point go to consecutive shards, from an offset
// the hash fixes, so that raising trials or adding grid points later moves
// no trial that already ran to another shard.
func shardOf(h string, t, n uint64) uint64 {
	off, _ := strconv.ParseUint(h[:min(len(h), 16)], 16, 64)
	return (off%n + t%n) % n
}

func runSweep(file string, fl sweepFlags, stdout, stderr io.Writer, deps sweepDeps) error {
	if deps.open == nil {
		deps.open = func(path string, valid int64) (resultAppender, error) { return sweep.AppendResults(path, valid) }
	}
	if deps.trial == nil {
		deps.trial = func(s *core.Spec, t uint64) *result.Result { return engine.RunTrial(s, t, nil) }
	}
	g, err := sweep.ReadGrid(file)
	if err != nil {
		return err
	}
	si, sn, err := parseShard(fl.shard)
	if err != nil {
		return err
	}
	w, err := parseCountFlag("workers", fl.workers)
	if err != nil {
		return err
	}
	out := fl.out
	if out == "" {
		out = strings.TrimSuffix(file, filepath.Ext(file))
	}
	shardText := ""
	if sn > 1 {
		shardText = fmt.Sprintf("%d/%d", si, sn)
	}
	bar, err := wantBar(fl.progress, stderr)
	if err != nil {
		return err
	}
	man := sweep.NewManifest(g, shardText, Version, buildCommit())
	// A folder that is not balloc's is left as it is: nothing is made,
	// locked or written there.
	if _, err := sweep.CheckFolder("--out", out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	// The lock comes before the manifest is read or written and is held to
	// the end: two runs on one folder would interleave their lines.
	lock, err := sweep.LockFolder(out, "sweep")
	if err != nil {
		return err
	}
	defer lock.Release()
	if old, err := sweep.ReadManifest(out); err == nil {
		if err := sweep.CheckExtends(out, old, man); err != nil {
			return err
		}
		if old.Shard != man.Shard {
			return fmt.Errorf("--out %s holds shard %q, not %q", out, old.Shard, man.Shard)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	resultsPath := filepath.Join(out, "results.jsonl")
	// The trials already done, read one line at a time: what is kept grows
	// with the trials, not the file (resultsindex.go).
	done := make([][]uint64, len(g.Specs))
	before := 0 // trials already there
	_, foreign, valid, torn, err := sweep.NewTrialIndex(man.Grid).Scan(resultsPath, func(p int, r *result.Result) error {
		done[p] = append(done[p], r.Trial)
		before++
		return nil
	})
	if err != nil {
		return err
	}
	// Said once every check has passed, so that a refusal stays one line.
	var notes []string
	if torn {
		notes = append(notes, fmt.Sprintf("balloc sweep: %s ended in a torn line (a run was killed); it is dropped and its trial run again", resultsPath))
	}
	sweep.AddNote(&notes, sweep.ForeignNote("sweep", resultsPath, foreign))
	// Every trial of the grid in canonical order; this shard's share; not
	// done. Listed lazily: nothing here grows with the number of trials.
	jobs := newSweepJobs(g, si, sn, done)
	done = nil
	var per units.Footprint
	perPoint := 0
	for p, s := range g.Specs {
		if f := engine.Footprint(s); f.Bytes > per.Bytes || p == 0 {
			per, perPoint = f, p
		}
	}
	workers := concurrency.Workers(int(w))
	if mem := units.MemoryLimit(); mem.Bytes > 0 && jobs.total > 0 {
		avail := mem.Bytes
		at := min(uint64(workers), jobs.total)
		s := g.Specs[perPoint]
		what := fmt.Sprintf("the sweep's largest trial (%s %s) needs %s, mostly for %s", s.Process.Name, s.ParamsText(), units.FormatBytes(float64(per.Bytes)), per.Culprit)
		switch {
		case per.Bytes > avail:
			return fmt.Errorf("%s, more than the %v: %s", what, mem, per.Hint)
		case units.Mul(per.Bytes, at) > avail:
			return fmt.Errorf("%s; %d at once exceed the %v: use --workers %d (or %s)", what, at, mem, avail/per.Bytes, per.Hint)
		}
	}
	if jobs.total > math.MaxInt {
		return fmt.Errorf("the sweep has %d trials to run; at most %d in one run (use --shard)", jobs.total, math.MaxInt)
	}
	njobs := int(jobs.total)
	printNotes(stderr, notes)
	if err := man.Write(out); err != nil {
		return failure{err}
	}
	rw, err := deps.open(resultsPath, valid)
	if err != nil {
		return failure{err}
	}
	defer rw.Close()
	var pb *progressbar.ProgressBar
	if bar {
		pb = progressbar.NewOptions(njobs, progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("trials"), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(), progressbar.OptionFullWidth())
	}
	// The first failed write (a full disk) stops the sweep: trials not yet
	// started are not run, and the lines written so far stay whole.
	var writeErr error
	written := 0
	// Ctrl-C: every trial written is a whole synced line, so say how many
	// and that the same command resumes from them.
	intr := onInterrupt(stderr, func() string {
		if pb != nil {
			_ = pb.Clear()
		}
		return fmt.Sprintf("balloc sweep: interrupted: %d of %d trials saved in %s (%d were there before); run the same command to resume",
			written, njobs, resultsPath, before)
	})
	concurrency.Ordered(njobs, workers, func(i int) *result.Result {
		p, trial := jobs.at(uint64(i))
		r := deps.trial(g.Specs[p], trial)
		r.SpecHash = g.Hashes[p]
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
		return failure{fmt.Errorf("%v; stopped after %d of %d trials (those are kept): make room and run the same command to resume", writeErr, written, njobs)}
	}
	fmt.Fprintf(stdout, "%s: %d trials run, %d were already there; %d grid points\n", resultsPath, njobs, before, len(g.Specs))
	return nil
}
