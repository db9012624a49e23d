package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/balloc/balloc/internal/files"
)

// Everything balloc slurm writes into a script is either checked against
// what Slurm accepts (partition, time, counts) or quoted (paths), so that no
// value can add a line or a command to a job.
var (
	// SlurmPartition matches Slurm's partition names, one or a
	// comma-separated list of them.
	SlurmPartition = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)
	// sbatch --time: minutes, minutes:seconds, hours:minutes:seconds,
	// days-hours, days-hours:minutes, days-hours:minutes:seconds.
	slurmTime = regexp.MustCompile(`^(\d{1,9}(:\d{1,9}){0,2}|\d{1,9}-\d{1,9}(:\d{1,9}){0,2})$`)
)

// MaxSlurmCPUs is the most --cpus-per-task a Slurm job can ask for (a
// 16-bit field of its job description).
const MaxSlurmCPUs = 65535

// CheckSlurmTime refuses a time limit sbatch --time does not read.
func CheckSlurmTime(v string) error {
	if slurmTime.MatchString(v) || strings.EqualFold(v, "infinite") || strings.EqualFold(v, "unlimited") {
		return nil
	}
	return fmt.Errorf("--time %q: want minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds (e.g. 02:00:00)", v)
}

// ScriptPath refuses a path a job script cannot hold: #SBATCH options end
// at the line, so a control character (a newline above all) would start a
// line of its own.
func ScriptPath(what, p string) error {
	if i := strings.IndexFunc(p, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q: a path with a control character cannot be written into a Slurm script; rename it", what, p)
	}
	return nil
}

// ShellQuote is s as one word of a POSIX shell.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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

// GlobEscape is p as a filepath.Match pattern matching p alone.
func GlobEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(p)
}

// SlurmJob is a sweep run as a Slurm array of Tasks shards, each on CPUs
// CPUs, then merged: Bin is balloc's executable, File the sweep file and
// Out its output folder (absolute paths); Partition and Time are sbatch's
// options, "" to leave them to the cluster.
type SlurmJob struct {
	Bin, File, Out  string
	Tasks, CPUs     uint64
	Partition, Time string
}

// Folder is where the job's scripts and logs go: Out/slurm.
func (j SlurmJob) Folder() string { return filepath.Join(j.Out, "slurm") }

// Scripts are the job's scripts by file name, in the order they are
// written: the array job, the merge job, and the script submitting both
// (the merge to run once every task has succeeded).
func (j SlurmJob) Scripts() (names, bodies []string) {
	jobs := j.Folder()
	q := ShellQuote
	name := "balloc-" + strings.TrimSuffix(filepath.Base(j.File), filepath.Ext(j.File))
	array := j.header(name, sbatchFilePattern(jobs)+"/shard-%a.log") +
		fmt.Sprintf("#SBATCH --array=0-%d\n#SBATCH --cpus-per-task=%d\n", j.Tasks-1, j.CPUs) +
		"# One shard of the sweep per task; the shard comes from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.\n" +
		fmt.Sprintf("exec %s sweep %s --out %s/shard-\"$SLURM_ARRAY_TASK_ID\" --workers %d --progress never\n", q(j.Bin), q(j.File), q(j.Out), j.CPUs)
	// The shard folders as one pattern that merge expands itself: listed,
	// 100000 of them would pass the system's limit on a command line.
	merge := j.header(name+"-merge", sbatchFilePattern(filepath.Join(jobs, "merge.log"))) +
		fmt.Sprintf("exec %s merge %s --out %s\n", q(j.Bin), q(GlobEscape(j.Out)+"/shard-*"), q(filepath.Join(j.Out, "merged")))
	submit := "#!/bin/sh\n# Submit the array, then the merge to run once every task has succeeded.\nset -e\n" +
		fmt.Sprintf("jid=$(sbatch --parsable %s)\n", q(filepath.Join(jobs, "array.sbatch"))) +
		fmt.Sprintf("mid=$(sbatch --parsable --dependency=afterok:\"${jid%%%%;*}\" %s)\n", q(filepath.Join(jobs, "merge.sbatch"))) +
		"echo \"$jid $mid\"\n"
	return []string{"array.sbatch", "merge.sbatch", "submit.sh"}, []string{array, merge, submit}
}

// header is a job script's first lines: its name, partition, time limit
// and log file.
func (j SlurmJob) header(name, log string) string {
	h := "#!/bin/bash\n#SBATCH --job-name=" + sbatchQuote(name) + "\n"
	if j.Partition != "" {
		h += "#SBATCH --partition=" + j.Partition + "\n"
	}
	if j.Time != "" {
		h += "#SBATCH --time=" + j.Time + "\n"
	}
	return h + "#SBATCH --output=" + sbatchQuote(log) + "\n"
}

// Write writes the job's scripts into its folder (Folder), made if
// missing, with Bin, File and Out made absolute (a job runs from wherever
// Slurm starts it). Every script is checked before any is written: an
// existing one is replaced only with force, and then all three are,
// together. It returns each script's path and whether it replaced a file.
// Bin must be a path the scripts can name (ScriptPath). A failure to
// write a checked script is a *WriteError (the others are refusals, before
// anything is written).
func (j *SlurmJob) Write(force bool) (paths []string, replaced []bool, err error) {
	if err := ScriptPath("balloc's own executable", j.Bin); err != nil {
		return nil, nil, &WriteError{err}
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	j.Bin, j.File, j.Out = abs(j.Bin), abs(j.File), abs(j.Out)
	folder := j.Folder()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return nil, nil, fmt.Errorf("--out %s: %v", j.Out, err)
	}
	names, bodies := j.Scripts()
	outs := make([]*files.Output, len(names))
	for i, name := range names {
		if outs[i], err = files.NewOutput("--out", filepath.Join(folder, name), force); err != nil {
			return nil, nil, err
		}
		outs[i].SetPerm(0o755)
	}
	for i, o := range outs {
		if err := o.WriteFile([]byte(bodies[i])); err != nil {
			return paths, replaced, &WriteError{err}
		}
		paths, replaced = append(paths, o.Path()), append(replaced, o.Replaces())
	}
	return paths, replaced, nil
}

// WriteError is SlurmJob.Write's failure once its checks passed: the
// machine's, not the caller's input (balloc exits 1 on it, not 2).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }
