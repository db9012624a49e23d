package main

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core/process"
)

// groupAnnotation names the help group of a run flag; flags without it are
// common to every process.
const groupAnnotation = "balloc_group"

// groupRunFlags sorts run's ~50 flags, for --help, into the common ones and
// one group per process family: a process flag goes to the first process of
// the catalogue that requires it (b-batch's --batch, which d-choice and
// one-plus-beta take as a setting), else to the first that takes it not as
// a setting (tau-delay's --delay, which others take with --tau), whose
// group title names the other processes that take any of its flags (each
// flag's usage says which). --weights, which every weighted process takes,
// stays common.
func groupRunFlags(c *cobra.Command) {
	g := process.FlagGroups()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if i, ok := g.Owner[f.Name]; ok {
			_ = c.Flags().SetAnnotation(f.Name, groupAnnotation, []string{g.Titles[i], strconv.Itoa(i)})
		}
	})
	c.SetUsageFunc(groupedUsage)
}

// groupedUsage writes a command's usage with its flags in the groups of
// groupRunFlags: common flags first, then the processes' in catalogue order,
// the flags of each group in the order of definition.
func groupedUsage(c *cobra.Command) error {
	var order []string
	rank := map[string]int{}
	sets := map[string]*pflag.FlagSet{}
	c.Flags().VisitAll(func(f *pflag.Flag) {
		g, r := "Common flags", -1
		if t := f.Annotations[groupAnnotation]; len(t) == 2 {
			g = "Flags of " + t[0]
			r, _ = strconv.Atoi(t[1])
		}
		if sets[g] == nil {
			order = append(order, g)
			rank[g] = r
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	slices.SortStableFunc(order, func(a, b string) int { return rank[a] - rank[b] })
	w := c.OutOrStderr()
	fmt.Fprintf(w, "Usage:\n  %s\n", c.UseLine())
	for _, g := range order {
		fmt.Fprintf(w, "\n%s:\n%s", g, sets[g].FlagUsages())
	}
	return nil
}
