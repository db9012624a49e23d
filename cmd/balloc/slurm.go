package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/sweep"
)

func newSlurmCommand(stdout io.Writer) *cobra.Command {
	var tasks, out, partition, timeLimit, cpus string
	c := &cobra.Command{
		Use:   "slurm FILE.toml --tasks N [--out DIR]",
		Short: "Write a Slurm array job running a sweep in N shards, and a merge job after it",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runSlurm(args[0], tasks, out, partition, timeLimit, cpus, stdout)
		},
	}
	c.Flags().StringVar(&tasks, "tasks", "", "array tasks, one shard each (required)")
	c.Flags().StringVar(&out, "out", "", "output folder (default: the file's name without .toml)")
	c.Flags().StringVar(&partition, "partition", "", "Slurm partition, or a comma-separated list (default: the cluster's)")
	c.Flags().StringVar(&timeLimit, "time", "", "Slurm time limit per task: M, M:S, H:M:S, D-H, D-H:M or D-H:M:S (e.g. 02:00:00)")
	c.Flags().StringVar(&cpus, "cpus", "1", "CPUs per task (trials run in parallel on them)")
	return c
}

// Everything balloc slurm writes into a script is either checked against
// what Slurm accepts (partition, time, counts) or quoted (paths), so that no
// value can add a line or a command to a job.
var (
	// Slurm's partition names, one or a comma-separated list of them.
	slurmPartition = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)
	// sbatch --time: minutes, minutes:seconds, hours:minutes:seconds,
	// days-hours, days-hours:minutes, days-hours:minutes:seconds.
	slurmTime = regexp.MustCompile(`^(\d{1,9}(:\d{1,9}){0,2}|\d{1,9}-\d{1,9}(:\d{1,9}){0,2})$`)
)

// maxSlurmCPUs is the most --cpus-per-task a Slurm job can ask for (a
// 16-bit field of its job description).
const maxSlurmCPUs = 65535

func checkSlurmTime(v string) error {
	if slurmTime.MatchString(v) || strings.EqualFold(v, "infinite") || strings.EqualFold(v, "unlimited") {
		return nil
	}
	return fmt.Errorf("--time %q: want minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 02:00:00)", v)
}

// scriptPath refuses a path a job script cannot hold: #SBATCH options end
// at the line, so a control character (a newline above all) would start a
// line of its own.
func scriptPath(what, p string) error {
	if i := strings.IndexFunc(p, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q: a path with a control character cannot be written into a Slurm script; rename it", what, p)
	}
	return nil
}

// shellQuote is s as one word of a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sbatchQuote is s as one argument of an #SBATCH line. sbatch splits those
// lines itself: a backslash escapes the next character, double (or, since
// Slurm 17.11, single) quotes group, and an unescaped # ends the line (in
// older versions even inside quotes), so \, " and # are escaped inside
// double quotes.
func sbatchQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `#`, `\#`).Replace(s) + `"`
}

// sbatchFilePattern is a path as sbatch's --output reads it: % starts a
// replacement (%a, %j, ...), and %% is a %.
func sbatchFilePattern(p string) string { return strings.ReplaceAll(p, "%", "%%") }

func runSlurm(file, tasksFlag, out, partition, timeLimit, cpusFlag string, stdout io.Writer) error {
	if tasksFlag == "" {
		return fmt.Errorf("--tasks is required")
	}
	tasks, err := parseCountFlag("tasks", tasksFlag)
	if err != nil {
		return err
	}
	if tasks < 1 || tasks > 100000 {
		return fmt.Errorf("--tasks %d: want 1 to 100000", tasks)
	}
	cpus, err := parseCountFlag("cpus", cpusFlag)
	if err != nil {
		return err
	}
	if cpus < 1 || cpus > maxSlurmCPUs {
		return fmt.Errorf("--cpus %d: want 1 to %d", cpus, maxSlurmCPUs)
	}
	if partition != "" && !slurmPartition.MatchString(partition) {
		return fmt.Errorf("--partition %q: want a Slurm partition name (letters, digits, _ . -), or a comma-separated list of them", partition)
	}
	if timeLimit != "" {
		if err := checkSlurmTime(timeLimit); err != nil {
			return err
		}
	}
	if err := scriptPath("FILE", file); err != nil {
		return err
	}
	if out != "" {
		if err := scriptPath("--out", out); err != nil {
			return err
		}
	}
	if _, err := sweep.ReadGrid(file); err != nil {
		return err
	}
	if out == "" {
		out = strings.TrimSuffix(file, filepath.Ext(file))
		if out == file {
			return fmt.Errorf("%s has no extension, so the output folder would be the file itself; give --out", file)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		return failure{err}
	}
	if err := scriptPath("balloc's own executable", bin); err != nil {
		return failure{err}
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	file, out = abs(file), abs(out)
	jobs := filepath.Join(out, "slurm")
	if err := os.MkdirAll(jobs, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	header := func(name, log string) string {
		h := "#!/bin/bash\n#SBATCH --job-name=" + sbatchQuote(name) + "\n"
		if partition != "" {
			h += "#SBATCH --partition=" + partition + "\n"
		}
		if timeLimit != "" {
			h += "#SBATCH --time=" + timeLimit + "\n"
		}
		return h + "#SBATCH --output=" + sbatchQuote(log) + "\n"
	}
	q := shellQuote
	name := "balloc-" + strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	array := header(name, sbatchFilePattern(jobs)+"/shard-%a.log") +
		fmt.Sprintf("#SBATCH --array=0-%d\n#SBATCH --cpus-per-task=%d\n", tasks-1, cpus) +
		"# One shard of the sweep per task; the shard comes from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.\n" +
		fmt.Sprintf("exec %s sweep %s --out %s/shard-\"$SLURM_ARRAY_TASK_ID\" --workers %d --progress never\n", q(bin), q(file), q(out), cpus)
	var shardDirs []string
	for i := range tasks {
		shardDirs = append(shardDirs, q(filepath.Join(out, fmt.Sprintf("shard-%d", i))))
	}
	merge := header(name+"-merge", sbatchFilePattern(filepath.Join(jobs, "merge.log"))) +
		fmt.Sprintf("exec %s merge %s --out %s\n", q(bin), strings.Join(shardDirs, " "), q(filepath.Join(out, "merged")))
	submit := "#!/bin/sh\n# Submit the array, then the merge to run once every task has succeeded.\nset -e\n" +
		fmt.Sprintf("jid=$(sbatch --parsable %s)\n", q(filepath.Join(jobs, "array.sbatch"))) +
		fmt.Sprintf("mid=$(sbatch --parsable --dependency=afterok:\"${jid%%%%;*}\" %s)\n", q(filepath.Join(jobs, "merge.sbatch"))) +
		"echo \"$jid $mid\"\n"
	for name, body := range map[string]string{"array.sbatch": array, "merge.sbatch": merge, "submit.sh": submit} {
		if err := os.WriteFile(filepath.Join(jobs, name), []byte(body), 0o755); err != nil {
			return failure{err}
		}
	}
	fmt.Fprintf(stdout, "%s\n%s\n%s\nsubmit with: sh %s   (results: %s)\n", filepath.Join(jobs, "array.sbatch"),
		filepath.Join(jobs, "merge.sbatch"), filepath.Join(jobs, "submit.sh"), shellQuote(filepath.Join(jobs, "submit.sh")), filepath.Join(out, "merged"))
	return nil
}
