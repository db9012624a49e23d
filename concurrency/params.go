package concurrency

import (
	"slices"
	"strings"

	"github.com/balloc/balloc/core/process"
)

// RuleParams are the parameters the concurrent rules read, as
// balloc concurrent's flags, in catalogue order: each usage the rule's own
// (what the parameter means to workers on shared loads), led by the
// processes that take it. A parameter an alias fixes (two-choice's d) is
// not the alias's.
func RuleParams() []process.RuleParam {
	var out []process.RuleParam
	takers := map[string][]string{}
	for _, e := range process.ConcurrentProcesses() {
		r, _ := e.ConcurrentRule()
		for _, q := range r.Params {
			if !e.Takes(q.Name) {
				continue
			}
			if _, seen := takers[q.Name]; !seen {
				out = append(out, q)
			}
			takers[q.Name] = append(takers[q.Name], e.Name)
		}
	}
	for i, q := range out {
		out[i].Usage = strings.Join(takers[q.Name], ", ") + ": " + q.Usage
	}
	return out
}

// RuleReads reports whether e's concurrent rule reads the parameter name
// (one of balloc concurrent's process flags).
func RuleReads(e *process.Entry, name string) bool {
	r, _ := e.ConcurrentRule()
	return e.Takes(name) && slices.ContainsFunc(r.Params, func(q process.RuleParam) bool { return q.Name == name })
}
