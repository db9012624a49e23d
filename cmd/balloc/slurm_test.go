package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/sweep"
)

// A value that would add a line or a command to a job script is refused, in
// one line naming the flag, and no script is written.
func TestSlurmRefusesInjection(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	writeFile(t, file, smallSweep)
	out := filepath.Join(dir, "s")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--partition", "x\ntouch PWNED"}, `--partition "x\ntouch PWNED"`},
		{[]string{"--partition", "x;touch PWNED"}, `--partition "x;touch PWNED"`},
		{[]string{"--partition", "x y"}, `--partition "x y"`},
		{[]string{"--partition", "a,,b"}, `--partition "a,,b"`},
		{[]string{"--partition", "$(touch PWNED)"}, `--partition "$(touch PWNED)"`},
		{[]string{"--time", "01:00:00\ntouch PWNED"}, `--time "01:00:00\ntouch PWNED"`},
		{[]string{"--time", "bogus"}, `--time "bogus"`},
		{[]string{"--time", "1:2:3:4"}, `--time "1:2:3:4"`},
		{[]string{"--time", "1-2-3"}, `--time "1-2-3"`},
		{[]string{"--time", "-5"}, `--time "-5"`},
		{[]string{"--time", "1e3"}, `--time "1e3"`},
		{[]string{"--time", "01:00 #"}, `--time "01:00 #"`},
		{[]string{"--out", filepath.Join(dir, "x\ntouch PWNED")}, `--out "`},
		{[]string{"--out", filepath.Join(dir, "x\rB")}, `--out "`},
		{[]string{"--cpus", "0"}, "--cpus 0: want 1 to 65535"},
		{[]string{"--cpus", "1.5"}, `--cpus "1.5"`},
		{[]string{"--cpus", "2^20"}, "--cpus 1048576: want 1 to 65535"},
		{[]string{"--cpus", "-1"}, `--cpus "-1"`},
		{[]string{"--cpus", "1;touch PWNED"}, `--cpus "1;touch PWNED"`},
	} {
		args := append([]string{"slurm", file, "--tasks", "2", "--out", out}, c.args...)
		if c.args[0] == "--out" {
			args = append([]string{"slurm", file, "--tasks", "2"}, c.args...)
		}
		code, stdout, errs := run(t, args...)
		if code != 2 || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and one line mentioning %q", c.args, code, stdout, errs, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused runs left files behind: %v", ents)
	}
	ctl := filepath.Join(dir, "a\nb.toml")
	writeFile(t, ctl, smallSweep)
	if code, _, errs := run(t, "slurm", ctl, "--tasks", "2", "--out", out); code != 2 || !strings.Contains(errs, "FILE ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a TOML file with a newline in its name: exit %d, stderr %q", code, errs)
	}
}

// parseSbatchLine splits the options of an #SBATCH line as sbatch does
// (src/sbatch/opt.c, _get_argument): a backslash escapes, quotes group, an
// unescaped # outside quotes ends the line.
func parseSbatchLine(t *testing.T, line string) []string {
	t.Helper()
	var args []string
	var cur strings.Builder
	in, esc, quoted, q := false, false, false, byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case esc:
			esc = false
		case ch == '\\':
			esc, in = true, true
			continue
		case quoted:
			if ch == q {
				quoted = false
				continue
			}
		case ch == '"' || ch == '\'':
			quoted, q, in = true, ch, true
			continue
		case ch == '#':
			i = len(line)
			continue
		case ch == ' ' || ch == '\t':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
			continue
		}
		cur.WriteByte(ch)
		in = true
	}
	if quoted {
		t.Fatalf("unmatched quote in %q", line)
	}
	if in {
		args = append(args, cur.String())
	}
	return args
}

// A folder whose name has spaces, quotes, $, #, % and a backslash: the
// shell runs the exact paths, sbatch reads the exact log paths, and
// submit.sh hands sbatch the exact scripts.
func TestSlurmQuotesPaths(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := filepath.Join(t.TempDir(), `it's a "dir" $HOME #1 100% \x`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "my grid.toml")
	writeFile(t, file, smallSweep)
	out := filepath.Join(dir, "out 'x'")
	code, _, errs := run(t, "slurm", file, "--tasks", "3", "--out", out, "--partition", "debug,gpu", "--time", "1-00:30")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	jobs := filepath.Join(out, "slurm")
	self, _ := os.Executable()
	for _, c := range []struct {
		script string
		argv   []string // the exec line's words, after the executable
		opts   map[string]string
	}{
		{"array.sbatch",
			[]string{"sweep", file, "--out", out + "/shard-2", "--workers", "1", "--progress", "never"},
			map[string]string{"--output": strings.ReplaceAll(jobs, "%", "%%") + "/shard-%a.log", "--job-name": "balloc-my grid", "--partition": "debug,gpu", "--time": "1-00:30", "--array": "0-2"}},
		{"merge.sbatch",
			[]string{"merge", sweep.GlobEscape(out) + "/shard-*", "--out", out + "/merged"},
			map[string]string{"--output": strings.ReplaceAll(jobs, "%", "%%") + "/merge.log", "--job-name": "balloc-my grid-merge"}},
	} {
		body, err := os.ReadFile(filepath.Join(jobs, c.script))
		if err != nil {
			t.Fatal(err)
		}
		opts := map[string]string{}
		var execLine string
		for _, line := range strings.Split(string(body), "\n") {
			if rest, ok := strings.CutPrefix(line, "#SBATCH"); ok {
				for _, a := range parseSbatchLine(t, rest) {
					k, v, _ := strings.Cut(a, "=")
					opts[k] = v
				}
			}
			if rest, ok := strings.CutPrefix(line, "exec "); ok {
				execLine = rest
			}
		}
		for k, v := range c.opts {
			if opts[k] != v {
				t.Errorf("%s: #SBATCH %s reads as %q, want %q", c.script, k, opts[k], v)
			}
		}
		cmd := exec.Command(bash, "-c", `printf '%s\0' `+execLine)
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=2")
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: bash cannot run %q: %v", c.script, execLine, err)
		}
		words := strings.Split(strings.TrimSuffix(string(got), "\x00"), "\x00")
		want := append([]string{self}, c.argv...)
		if strings.Join(words, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the shell runs\n%q\nwant\n%q", c.script, words, want)
		}
	}
	// merge expands the pattern to the shard folders of this path, however
	// odd its characters, in the shards' order.
	var shards []string
	for _, i := range []int{0, 2, 10, 1} {
		d := filepath.Join(out, fmt.Sprintf("shard-%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	got, err := sweep.ExpandFolders([]string{sweep.GlobEscape(out) + "/shard-*"})
	if want := []string{shards[0], shards[3], shards[1], shards[2]}; err != nil || !slices.Equal(got, want) {
		t.Errorf("merge expands the pattern to %q (%v), want %q", got, err, want)
	}
	// submit.sh with an sbatch that records what it is given.
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	writeFile(t, filepath.Join(bin, "sbatch"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> \""+log+"\"; done\necho 42\n")
	if err := os.Chmod(filepath.Join(bin, "sbatch"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join(jobs, "submit.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if got, err := cmd.CombinedOutput(); err != nil || string(got) != "42 42\n" {
		t.Fatalf("submit.sh: %v: %q", err, got)
	}
	rec, _ := os.ReadFile(log)
	want := strings.Join([]string{"--parsable", filepath.Join(jobs, "array.sbatch"), "--parsable", "--dependency=afterok:42", filepath.Join(jobs, "merge.sbatch")}, "\n") + "\n"
	if string(rec) != want {
		t.Errorf("submit.sh gave sbatch\n%s\nwant\n%s", rec, want)
	}
}
