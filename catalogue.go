package balloc

import "github.com/balloc/balloc/core/process"

// Process is an entry of the catalogue, as `balloc run --help` lists it.
type Process struct {
	Name    string // Config.Process
	Summary string // the rule in one line
	Source  string // the paper that defines it
	Params  []Param
	// Histogram: the histogram engine runs it (a symmetric process);
	// Fluid: it has a fluid limit (Config.Theory, Spec.Fluid).
	Histogram, Fluid bool
	// Capabilities says it all in one line, e.g. "engines: direct,
	// histogram · theory: fluid · concurrent · balls leave".
	Capabilities string
}

// Param is a parameter of a process (a key of Params).
type Param struct {
	Name    string
	Usage   string // what it means and which values it takes
	Default string // as text; "" when it must be given
	Bool    bool   // a switch: give a bool
}

// Processes lists the built-in processes in catalogue order.
func Processes() []Process {
	var out []Process
	for _, e := range process.Entries() {
		p := Process{Name: e.Name, Summary: e.Summary, Source: e.Source,
			Histogram: e.Symmetric(), Fluid: e.HasFluid(), Capabilities: e.Capabilities()}
		for _, q := range e.New().Params() {
			p.Params = append(p.Params, Param{Name: q.Name, Usage: q.Usage, Default: q.Default, Bool: q.Bool})
		}
		if w := process.FlagOf("weights"); e.Weighted && w != nil {
			p.Params = append(p.Params, Param{Name: w.Name, Usage: w.Usage, Default: w.Default})
		}
		out = append(out, p)
	}
	return out
}
