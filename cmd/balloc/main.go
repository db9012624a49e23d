package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/internal/files"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// failure marks an error that happened while doing the work (exit 1), as
// opposed to bad input (exit 2).
type failure struct{ error }

func (f failure) Unwrap() error { return f.error }

// Main runs balloc with the given arguments and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	files.Forget() // this run's inputs and outputs, not an earlier one's
	root := newRoot(stdout, stderr)
	if completing(args) {
		looseFlags(root)
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintf(stderr, "balloc: %s\n", msg)
	var f failure
	if errors.As(err, &f) {
		return 1
	}
	return 2
}

// newRoot is balloc's command tree, every flag of it strict (strictFlags).
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "balloc",
		Short:         "balloc simulates balanced allocations (balls into bins), exactly and fast",
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
	}
	// balloc alone prints its help; anything else that is not a command
	// (a word after --, a misspelt name) is refused, exit 2.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unknown command %q for %q (see balloc --help)", args[0], c.CommandPath())
		}
		return nil
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || (len(args) > 0 && cmd == root) {
				return fmt.Errorf("help %s: no such command (see balloc --help)", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	})
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var fe flagError
		if errors.As(err, &fe) {
			return fe
		}
		return fmt.Errorf("%v (see %s --help)", err, c.CommandPath())
	})
	root.AddCommand(newRunCommand(stdout, stderr), newInfoCommand(stdout), newConcurrentCommand(stdout),
		newSweepCommand(stdout, stderr), newMergeCommand(stdout, stderr), newSlurmCommand(stdout), newSummarizeCommand(stdout), newPlotCommand(stdout),
		newGraphStatsCommand(stdout), newHypergraphStatsCommand(stdout), newHaarInfoCommand(stdout), newOptimalCommand(stdout), newAdversaryCommand(stdout),
		newVersionCommand(stdout), newCompletionCommand(stdout))
	strictFlags(root)
	for _, c := range root.Commands() {
		nameArgs(c)
		completeProcesses(c)
	}
	return root
}

// nameArgs makes a command's refusal of its arguments say which command and
// what it takes: cobra's own ("accepts 1 arg(s), received 0") names neither.
func nameArgs(c *cobra.Command) {
	check := c.Args
	if check == nil {
		return
	}
	c.Args = func(c *cobra.Command, args []string) error {
		err := check(c, args)
		if err != nil && !strings.Contains(err.Error(), c.CommandPath()) {
			return fmt.Errorf("%v: usage: %s", err, c.UseLine())
		}
		return err
	}
}
