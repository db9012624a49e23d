package core

import (
	"fmt"
	"sort"
	"strings"
)

// Kind identifies the allocation rule of a process. Aliases (two-choice)
// share the Kind of the process they fix a parameter of.
type Kind int

const (
	KindOneChoice Kind = iota + 1
	KindDChoice
	KindOnePlusBeta
	KindAlwaysGoLeft
	KindTwoThinning
	KindGAdvComp
	KindGMyopicComp
	KindSigmaNoisyLoad
	KindRhoNoisyComp
	KindTauDelay
	KindBBatch
	KindGraphical
	KindKPGroups
	KindHypergraph
	KindIdea
)

// Process is one entry of the catalogue: a rule, the parameters (flags) it
// takes, and what balloc knows about it.
type Process struct {
	Name    string
	Kind    Kind
	Params  []string // parameter names it takes, e.g. "d", "beta"
	Fixed   Params   // values an alias fixes (two-choice: d = 2)
	Summary string   // one line, for help and the README
	Source  string   // where the rule is defined

	Weighted  bool // accepts --weights
	Symmetric bool // the next bin depends on loads only, never on names
	Fluid     bool // core has its fluid limit (Fluid)
}

// Takes reports whether p accepts the parameter (flag name without dashes).
func (p *Process) Takes(param string) bool {
	if param == "weights" {
		return p.Weighted
	}
	for _, q := range p.Params {
		if q == param {
			return true
		}
	}
	return false
}

var catalogue = []Process{
	{
		Name: "one-choice", Kind: KindOneChoice,
		Summary:  "each ball into a uniform bin",
		Source:   "classical",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "d-choice", Kind: KindDChoice, Params: []string{"d", "dims", "populated"},
		Summary:  "least loaded of d uniform bins (with replacement), ties at random",
		Source:   "Azar, Broder, Karlin, Upfal 1999; Berenbrink et al. 2006 (heavy load)",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "two-choice", Kind: KindDChoice, Fixed: Params{D: 2},
		Summary:  "d-choice with d = 2",
		Source:   "Azar, Broder, Karlin, Upfal 1999",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "one-plus-beta", Kind: KindOnePlusBeta, Params: []string{"beta"},
		Summary:   "with probability β two-choice, else one-choice",
		Source:    "Peres, Talwar, Wieder 2015",
		Symmetric: true, Fluid: true,
	},
	{
		Name: "always-go-left", Kind: KindAlwaysGoLeft, Params: []string{"d"},
		Summary: "d equal groups, one uniform bin per group, least loaded, ties to the leftmost group",
		Source:  "Vöcking 2003",
		Fluid:   true,
	},
	{
		Name: "two-thinning", Kind: KindTwoThinning, Params: []string{"threshold"},
		Summary:   "first uniform bin kept if its load < t/n + θ, else a second uniform bin",
		Source:    "Feldheim, Gurel-Gurevich 2021; Los, Sauerwald, Sylvester 2022",
		Symmetric: true, Fluid: true,
	},
	{
		Name: "g-adv-comp", Kind: KindGAdvComp, Params: []string{"g", "adversary"},
		Summary:  "two uniform bins; loads within g: the adversary decides, else the lighter",
		Source:   "Los, Sauerwald 2022 (Choice of Noise), §2; g-Bounded: Nadiradze",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "g-myopic-comp", Kind: KindGMyopicComp, Params: []string{"g"},
		Summary:  "two uniform bins; loads within g: a random one of the two, else the lighter",
		Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "sigma-noisy-load", Kind: KindSigmaNoisyLoad, Params: []string{"sigma"},
		Summary:  "two uniform bins; each load read with fresh N(0, σ²) noise, compared as reals",
		Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "rho-noisy-comp", Kind: KindRhoNoisyComp, Params: []string{"rho"},
		Summary:  "two uniform bins; loads differing by δ compared correctly with probability ρ(δ)",
		Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "tau-delay", Kind: KindTauDelay, Params: []string{"tau", "delay", "ages", "replay"},
		Summary:  "two uniform bins; each load read as it was up to τ balls ago",
		Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
		Weighted: true,
	},
	{
		Name: "b-batch", Kind: KindBBatch, Params: []string{"batch"},
		Summary:  "two uniform bins compared on the loads at the start of the batch of b balls",
		Source:   "Berenbrink, Czumaj, Englert, Friedetzky, Nagel 2012; Los, Sauerwald 2022",
		Weighted: true, Symmetric: true, Fluid: true,
	},
	{
		Name: "graphical", Kind: KindGraphical, Params: []string{"graph", "strategy", "beta", "stale", "haar-scale", "haar-route", "graph-clean"},
		Summary: "a uniform edge of --graph; the less loaded endpoint (ties at random), (1+β) on the edge, or haar: the endpoint a sampled tree node's drift points to",
		Source:  "Kenthapadi, Panigrahy 2006 (Balanced allocation on graphs); Peres, Talwar, Wieder 2015 ((1+β) on graphs); Bansal, Feldheim 2022 (The power of two choices in graphical allocation: haar)",
	},
	{
		Name: "kp-groups", Kind: KindKPGroups, Params: []string{"group-size", "aligned", "group-rule"},
		Summary: "two uniform groups of k consecutive bins; the least loaded bin (leftmost) of the lesser loaded group",
		Source:  "Kenthapadi, Panigrahy 2006 (Balanced allocation on graphs), §5",
	},
	{
		Name: "hypergraph", Kind: KindHypergraph, Params: []string{"hyperedges", "d", "probe-all", "refresh", "graph-clean"},
		Summary: "a uniform hyperedge, then d distinct uniform bins of it; the least loaded (ties at random)",
		Source:  "Greenhill, Mans, Pourmiri 2020 (Balanced allocation on hypergraphs); Godfrey 2008 (--probe-all)",
	},
	{
		Name: "idea", Kind: KindIdea, Params: []string{"d", "retries", "variant", "held", "sample-size", "sample-rule", "dims", "populated", "vector-gap"},
		Summary:  "rounds of d uniform bins, up to γ, until one has load ≤ its estimated average; the estimates of the last round's bins grow by 1/d",
		Source:   "IDEA: Perfectly Balanced Allocation With Estimated Average Using Expected Constant Retries, §3 (rules), §6.1–6.2 (weights, vectors)",
		Weighted: true,
	},
}

// Processes returns the catalogue in a stable order.
func Processes() []Process {
	return append([]Process(nil), catalogue...)
}

// LookupProcess finds a process by name.
func LookupProcess(name string) (*Process, error) {
	for i := range catalogue {
		if catalogue[i].Name == name {
			p := catalogue[i]
			return &p, nil
		}
	}
	return nil, fmt.Errorf("--process %q is not a process balloc knows (known: %s)", name, strings.Join(processNames(), ", "))
}

func processNames() []string {
	var names []string
	for _, p := range catalogue {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}
