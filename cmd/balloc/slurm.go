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
	"github.com/balloc/balloc/internal/files"
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

// globEscape is p as a filepath.Match pattern matching p alone.
func globEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(p)
}

func runSlurm(file, tasksFlag, out, partition, timeLimit, cpusFlag string, force bool, stdout io.Writer) error {
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
	// The shard folders as one pattern that merge expands itself: listed,
	// 100000 of them would pass the system's limit on a command line.
	merge := header(name+"-merge", sbatchFilePattern(filepath.Join(jobs, "merge.log"))) +
		fmt.Sprintf("exec %s merge %s --out %s\n", q(bin), q(globEscape(out)+"/shard-*"), q(filepath.Join(out, "merged")))
	submit := "#!/bin/sh\n# Submit the array, then the merge to run once every task has succeeded.\nset -e\n" +
		fmt.Sprintf("jid=$(sbatch --parsable %s)\n", q(filepath.Join(jobs, "array.sbatch"))) +
		fmt.Sprintf("mid=$(sbatch --parsable --dependency=afterok:\"${jid%%%%;*}\" %s)\n", q(filepath.Join(jobs, "merge.sbatch"))) +
		"echo \"$jid $mid\"\n"
	// Every script is checked before any is written: an existing one is
	// replaced only with --force, and then all three are, together.
	scripts := []struct {
		name, body string
		out        *files.Output
	}{{name: "array.sbatch", body: array}, {name: "merge.sbatch", body: merge}, {name: "submit.sh", body: submit}}
	for i, s := range scripts {
		if scripts[i].out, err = files.NewOutput("--out", filepath.Join(jobs, s.name), force); err != nil {
			return err
		}
		scripts[i].out.SetPerm(0o755)
	}
	for _, s := range scripts {
		if err := s.out.WriteFile([]byte(s.body)); err != nil {
			return failure{err}
		}
		note := ""
		if s.out.Replaces() {
			note = "   (replaced)"
		}
		fmt.Fprintf(stdout, "%s%s\n", filepath.Join(jobs, s.name), note)
	}
	fmt.Fprintf(stdout, "submit with: sh %s   (results: %s)\n", shellQuote(filepath.Join(jobs, "submit.sh")), filepath.Join(out, "merged"))
	return nil
}
