package process

import (
	"slices"
	"strings"
	"sync"
)

// Groups sorts the parameters of the catalogue into one group per process,
// as balloc run --help shows them: Owner is each parameter's process (its
// index in Entries), the first process of the catalogue that requires it
// (b-batch's --batch, which d-choice and one-plus-beta take as a setting),
// else the first that takes it not as a setting (tau-delay's --delay,
// which others take with --tau), else the first that takes it; Titles[i]
// is process i's group title, naming the other processes that take any of
// its parameters. A parameter every weighted process takes (--weights) is
// not a process's and has no owner.
type Groups struct {
	Owner  map[string]int
	Titles []string
}

// FlagGroups is the catalogue's Groups, computed once: it depends only on
// the catalogue, which is complete once the package's init has run, and
// walking every process's parameters for every other process costs about
// 5 ms (paid by each command tree balloc builds).
var FlagGroups = sync.OnceValue(func() Groups {
	owner := map[string]int{} // flag: index of its process in the catalogue
	procs := Entries()
	for _, pass := range []func(q *Param) bool{
		func(q *Param) bool { return q.Default == "" && !q.IsSetting() },
		func(q *Param) bool { return !q.IsSetting() }, // tau-delay's --delay, not d-choice's setting
		func(*Param) bool { return true },
	} {
		for i, p := range procs {
			for _, q := range p.New().Params() {
				if _, ok := owner[q.Name]; !ok && pass(q) {
					owner[q.Name] = i
				}
			}
		}
	}
	titles := make([]string, len(procs))
	for i, p := range procs {
		var also []string
		for _, o := range procs {
			if o.Name == p.Name {
				continue
			}
			for _, q := range o.Params() {
				if owner[q] == i && p.Takes(q) && !slices.Contains(also, o.Name) {
					also = append(also, o.Name)
				}
			}
		}
		titles[i] = p.Name
		if len(also) > 0 {
			titles[i] += " (also " + strings.Join(also, ", ") + ")"
		}
	}
	return Groups{owner, titles}
})
