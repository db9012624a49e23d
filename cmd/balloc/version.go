package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/internal/buildinfo"
)

// versionLine is what `balloc version`, `balloc --version` and `info` print:
// the release (Version) and the commit it was built from.
func versionLine() string {
	return fmt.Sprintf("balloc %s (commit %s, %s)", Version, buildCommit(), runtime.Version())
}

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print balloc's version and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(stdout, versionLine())
			return nil
		},
	}
}

// newCompletionCommand writes cobra's completion script for a shell. It is
// balloc's own command rather than cobra's default one so that it is in the
// tree when strictFlags and nameArgs walk it (cobra adds its default only
// while executing); the scripts call the hidden `balloc __complete`, which
// parses flags through the same strict values.
func newCompletionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script (bash, zsh or fish)",
		Long: `Print a shell completion script. For example:

  bash:  source <(balloc completion bash)
  zsh:   balloc completion zsh > "${fpath[1]}/_balloc"
  fish:  balloc completion fish > ~/.config/fish/completions/balloc.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 || !slices.Contains(c.ValidArgs, args[0]) {
				return fmt.Errorf("want one shell, bash, zsh or fish (got %q)", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(stdout, true)
			case "zsh":
				return root.GenZshCompletion(stdout)
			default:
				return root.GenFishCompletion(stdout, true)
			}
		},
	}
}

// completeProcesses offers the catalogue's names for --process (a list:
// the names after the last comma).
func completeProcesses(c *cobra.Command) {
	if c.Flags().Lookup("process") == nil {
		return
	}
	_ = c.RegisterFlagCompletionFunc("process", func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
		done := typed[:strings.LastIndex(typed, ",")+1] // the names before the last comma stay
		var names []string
		for _, p := range process.Entries() {
			if strings.HasPrefix(done+p.Name, typed) {
				names = append(names, done+p.Name+"\t"+p.Summary)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// looseFlags undoes strictFlags for a completion request (balloc __complete
// …, which the scripts call on every Tab): cobra parses the typed flags more
// than once while completing, which a onceValue would refuse as given twice,
// and a half-typed command line is not a run to refuse anyway.
func looseFlags(c *cobra.Command) {
	unwrap := func(f *pflag.Flag) {
		if v, ok := f.Value.(*onceValue); ok {
			f.Value = v.Value
		}
	}
	c.Flags().VisitAll(unwrap)
	c.PersistentFlags().VisitAll(unwrap)
	for _, sub := range c.Commands() {
		looseFlags(sub)
	}
}

// completing reports whether args are a request from a completion script.
func completing(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// Version is balloc's version; commit is set at build time by the Makefile
// (-ldflags "-X main.commit=...") or read from the build info (buildinfo.Commit).
const Version = "0.3.0"

var commit = ""

// buildCommit is the commit this binary was built from
// (buildinfo.Commit: the linker flag, else the build info).
func buildCommit() string {
	bi, _ := debug.ReadBuildInfo()
	return buildinfo.Commit(commit, bi)
}
