package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/sweep"
)

func newSlurmCommand(stdout io.Writer) *cobra.Command {
	var tasks, out, partition, timeLimit, cpus string
	var force bool
	c := &cobra.Command{
		Use:   "slurm FILE.toml --tasks N [--out DIR]",
		Short: "Write a Slurm array job running a sweep in N shards, and a merge job after it",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runSlurm(args[0], tasks, out, partition, timeLimit, cpus, force, stdout)
		},
	}
	c.Flags().StringVar(&tasks, "tasks", "", "array tasks, one shard each (required)")
	c.Flags().StringVar(&out, "out", "", "output folder (default: the file's name without .toml)")
	c.Flags().StringVar(&partition, "partition", "", "Slurm partition, or a comma-separated list (default: the cluster's)")
	c.Flags().StringVar(&timeLimit, "time", "", "Slurm time limit per task: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S (e.g. 02:00:00)")
	c.Flags().StringVar(&cpus, "cpus", "1", "CPUs per task (trials run in parallel on them)")
	c.Flags().BoolVar(&force, "force", false, forceHelp)
	return c
}

// runSlurm checks the flags and the sweep file, then writes the job's
// scripts into OUT/slurm (sweep.SlurmJob.Write).
func runSlurm(file, tasksFlag, out, partition, timeLimit, cpusFlag string, force bool, stdout io.Writer) error {
	job, err := slurmJob(file, tasksFlag, out, partition, timeLimit, cpusFlag)
	if err != nil {
		return err
	}
	if job.Bin, err = os.Executable(); err != nil {
		return failure{err}
	}
	paths, replaced, err := job.Write(force)
	for i, p := range paths {
		note := ""
		if replaced[i] {
			note = "   (replaced)"
		}
		fmt.Fprintf(stdout, "%s%s\n", p, note)
	}
	if we := (*sweep.WriteError)(nil); errors.As(err, &we) {
		return failure{err}
	} else if err != nil {
		return err
	}
	jobs := job.Folder()
	fmt.Fprintf(stdout, "submit with: sh %s   (results: %s)\n", sweep.ShellQuote(filepath.Join(jobs, "submit.sh")), filepath.Join(job.Out, "merged"))
	return nil
}

// slurmJob checks balloc slurm's flags and the sweep file, before anything
// is written.
func slurmJob(file, tasksFlag, out, partition, timeLimit, cpusFlag string) (sweep.SlurmJob, error) {
	job := sweep.SlurmJob{File: file, Out: out, Partition: partition, Time: timeLimit}
	if tasksFlag == "" {
		return job, fmt.Errorf("--tasks is required")
	}
	var err error
	if job.Tasks, err = parseCountFlag("tasks", tasksFlag); err != nil {
		return job, err
	}
	if job.Tasks < 1 || job.Tasks > 100000 {
		return job, fmt.Errorf("--tasks %d: want 1 to 100000", job.Tasks)
	}
	if job.CPUs, err = parseCountFlag("cpus", cpusFlag); err != nil {
		return job, err
	}
	if job.CPUs < 1 || job.CPUs > sweep.MaxSlurmCPUs {
		return job, fmt.Errorf("--cpus %d: want 1 to %d", job.CPUs, sweep.MaxSlurmCPUs)
	}
	if partition != "" && !sweep.SlurmPartition.MatchString(partition) {
		return job, fmt.Errorf("--partition %q: want a Slurm partition name (letters, digits, _ . -), or a comma-separated list of them", partition)
	}
	if timeLimit != "" {
		if err := sweep.CheckSlurmTime(timeLimit); err != nil {
			return job, err
		}
	}
	if err := sweep.ScriptPath("FILE", file); err != nil {
		return job, err
	}
	if out != "" {
		if err := sweep.ScriptPath("--out", out); err != nil {
			return job, err
		}
	}
	if _, err := sweep.ReadGrid(file); err != nil {
		return job, err
	}
	if out == "" {
		job.Out = strings.TrimSuffix(file, filepath.Ext(file))
		if job.Out == file {
			return job, fmt.Errorf("%s has no extension, so the output folder would be the file itself; give --out", file)
		}
	}
	return job, nil
}
