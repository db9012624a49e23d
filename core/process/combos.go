package process

import (
	"slices"
	"sort"
	"strings"
)

// Lists of parameter values run every combination of the values of the
// parameters a process takes. Some parameters matter only in some of a
// process's modes (graphical's --stale for --strategy haar, idea's
// --sample-size for --variant sampling, ...; Param.AppliesWhen): a
// combination that puts one beside another mode leaves it out, so that a
// list of modes with such a parameter compares the modes, and a mode that
// ignores a listed parameter runs once, not once per value.

// Combos returns the parameter sets e runs for the listed values: every
// combination of the values of the parameters it takes, less the
// parameters a combination's mode ignores, each distinct set once, in the
// order of the lists. used holds the parameters some set kept.
func (e *Entry) Combos(values map[string][]string) (combos []map[string]string, used map[string]bool) {
	params := e.New().Params()
	var keys []string // the parameters e takes, in flag order
	for _, f := range flags {
		if _, ok := values[f.Name]; ok && e.Takes(f.Name) {
			keys = append(keys, f.Name)
		}
	}
	used = map[string]bool{}
	seen := map[string]bool{}
	for _, combo := range paramCombos(keys, values) {
		get := func(name string) string {
			if v, ok := combo[name]; ok {
				return v
			}
			return FlagOf(name).Default
		}
		for _, q := range params {
			if q.when != nil && !q.when(get) {
				delete(combo, q.Name)
			}
		}
		names := make([]string, 0, len(combo))
		for k := range combo {
			names = append(names, k)
			used[k] = true
		}
		sort.Strings(names)
		var id strings.Builder
		for _, k := range names {
			id.WriteString(k + "=" + combo[k] + "\x00")
		}
		if !seen[id.String()] {
			seen[id.String()] = true
			combos = append(combos, combo)
		}
	}
	return combos, used
}

// UnusedParamError says why a listed parameter no process used was refused:
// the mode it needs where it has one, else the processes it does not apply to.
func UnusedParamError(param string, processes []string) string {
	for _, e := range Entries() {
		if !slices.Contains(processes, e.Name) {
			continue
		}
		for _, q := range e.New().Params() {
			if q.Name == param && q.only != "" {
				return q.only
			}
		}
	}
	return "--" + param + " does not apply to " + strings.Join(processes, ", ")
}

// paramCombos is every assignment of one value to each key.
func paramCombos(keys []string, values map[string][]string) []map[string]string {
	out := []map[string]string{{}}
	for _, k := range keys {
		var next []map[string]string
		for _, partial := range out {
			for _, v := range values[k] {
				c := map[string]string{}
				for kk, vv := range partial {
					c[kk] = vv
				}
				c[k] = v
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}
