package process

// What balloc concurrent takes from a process besides its decision's shape
// (process.go's Rule): the parameters its rule reads, which become
// concurrent's flags, and the sequential runs a concurrent run is set
// beside. The command and the concurrency package read these and name no
// process, so a process whose rule has one of the shapes the lock-free loop
// knows appears in balloc concurrent by its Concurrent method alone.

// RuleParam is a parameter a concurrent rule reads: balloc concurrent's
// flag of that name, with the help it shows there (what the parameter
// means to workers on shared loads, which balloc run's help does not say).
type RuleParam struct {
	Name  string
	Usage string
}

// Model is a sequential run: a process of the catalogue and the parameter
// values that make it the rule compared (beyond those balloc concurrent
// sets itself).
type Model struct {
	Process string
	Set     map[string]string
}

// Models are the sequential runs of m balls a concurrent run is set beside
// (balloc concurrent --compare): Fresh, the rule on current loads; Delayed,
// the rule reading loads through the τ-Delay setting, to which balloc
// concurrent adds --delay replay (the run's own ages in ball order),
// --delay empirical (i.i.d. ages of the run's law) and --delay fixed --tau
// τ (the ages' p99); Batched, the rule in batches, to which it adds
// --batch max(τ, 1).
type Models struct {
	Fresh, Delayed, Batched Model
}

// With is m with set's values added (m's own win where both have one).
func (m Model) With(set map[string]string) map[string]string {
	all := map[string]string{}
	for k, v := range set {
		all[k] = v
	}
	for k, v := range m.Set {
		all[k] = v
	}
	return all
}

// leastOfTwoModels are the sequential models of the least loaded of two
// uniform samples: Two-Choice; τ-Delay, Two-Choice reading each load as it
// was up to τ balls ago (Los and Sauerwald, "Balanced allocations with the
// choice of noise", PODC 2022, §2), whose --delay takes a run's replay and
// empirical law of ages (taudelay.go); and b-Batch, Two-Choice deciding on
// the loads at its batch's start (taudelay.go's paper, and Berenbrink,
// Czumaj, Englert, Friedetzky and Nagel, RANDOM 2012; bbatch.go). Other
// rules have no models: their concurrent runs are not compared.
func leastOfTwoModels() *Models {
	return &Models{Fresh: Model{Process: "two-choice"}, Delayed: Model{Process: "tau-delay"}, Batched: Model{Process: "b-batch"}}
}

// ConcurrentProcesses are the catalogue's entries with a concurrent rule,
// in catalogue order.
func ConcurrentProcesses() []*Entry {
	var out []*Entry
	for _, e := range Entries() {
		if _, ok := e.New().(Concurrent); ok {
			out = append(out, e)
		}
	}
	return out
}

// ConcurrentRule is e's concurrent rule at its parameters' zero values
// (what it reads and whether it has models is fixed by the process; the
// models themselves may depend on the values), and whether e has one.
func (e *Entry) ConcurrentRule() (Rule, bool) {
	c, ok := e.New().(Concurrent)
	if !ok {
		return Rule{}, false
	}
	return c.Concurrent(), true
}
