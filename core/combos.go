package core

import (
	"slices"
	"sort"
	"strings"
)

// Lists of parameter values run every combination of the values of the
// parameters a process takes. Some parameters matter only in some of a
// process's modes (--beta for graphical --strategy one-plus-beta, --stale
// for --strategy haar, --sample-size for idea --variant sampling, ...): a
// combination that puts one beside another mode leaves it out, so that
// `--strategy greedy,one-plus-beta --beta 0.5` compares the two, and a
// mode that ignores a listed parameter runs once, not once per value.

// conditional is a parameter a process takes only when applies says so,
// given the combination's values (or the defaults).
type conditional struct {
	process, param string
	applies        func(get func(string) string) bool
	only           string // the error when no combination uses it
}

var conditionals = []conditional{
	{"graphical", "beta", func(get func(string) string) bool { return get("strategy") == "one-plus-beta" },
		"--beta applies to graphical --strategy one-plus-beta only"},
	{"graphical", "stale", func(get func(string) string) bool { return get("strategy") == "haar" },
		"--stale applies to graphical --strategy haar only"},
	{"graphical", "haar-scale", func(get func(string) string) bool { return get("strategy") == "haar" },
		"--haar-scale applies to graphical --strategy haar only"},
	{"graphical", "haar-route", func(get func(string) string) bool { return get("strategy") == "haar" },
		"--haar-route applies to graphical --strategy haar only"},
	{"idea", "sample-size", func(get func(string) string) bool { return get("variant") == "sampling" },
		"--sample-size applies to idea --variant sampling only"},
	{"idea", "sample-rule", func(get func(string) string) bool { return get("variant") == "sampling" },
		"--sample-rule applies to idea --variant sampling only"},
	{"idea", "held", func(get func(string) string) bool { return get("variant") != "oracle" },
		"--held applies to idea --variant numbered or sampling only"},
	{"idea", "vector-gap", func(get func(string) string) bool {
		d, err := ParseCount(get("dims"))
		return err != nil || d > 1 // a bad --dims is NewSpec's to report
	}, "--vector-gap applies to balls of --dims 2 or more"},
}

// Combos returns the parameter sets p runs for the listed values: every
// combination of the values of the parameters it takes, less the
// parameters a combination's mode ignores, each distinct set once, in the
// order of the lists. used holds the parameters some set kept.
func (p *Process) Combos(values map[string][]string) (combos []map[string]string, used map[string]bool) {
	var keys []string // the parameters p takes, in flag order
	for _, def := range paramDefs {
		if _, ok := values[def.Name]; ok && p.Takes(def.Name) {
			keys = append(keys, def.Name)
		}
	}
	used = map[string]bool{}
	seen := map[string]bool{}
	for _, combo := range paramCombos(keys, values) {
		get := func(name string) string {
			if v, ok := combo[name]; ok {
				return v
			}
			return paramDef(name).Default
		}
		for _, c := range conditionals {
			if c.process == p.Name && !c.applies(get) {
				delete(combo, c.param)
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
	for _, c := range conditionals {
		if c.param == param && slices.Contains(processes, c.process) {
			return c.only
		}
	}
	return "--" + param + " does not apply to " + strings.Join(processes, ", ")
}
