package sweep

import (
	"slices"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// Axes are the lists a grid is the product of: balloc run's flags (one
// bins, one balls, lists of parameter values) and a sweep file's keys
// (lists of each) both become Axes, and Expand makes their grid points.
type Axes struct {
	Processes []string
	Bins      []uint64            // {0} where a graph or a file fixes the bins
	Balls     []uint64            // unused when PerBin is set
	PerBin    []uint64            // balls per bin, or nil
	Params    map[string][]string // each parameter's values, as written
	Dynamic   []DynamicCell       // the settings of balls that leave; at least one
	Common    core.Common         // the settings every point shares
}

// DynamicCell is one combination of the settings of balls that leave, and
// each setting's value as written (for a message naming two that coincide).
type DynamicCell struct {
	Settings core.Dynamic
	Values   map[string]string
}

// Origin is where a grid point came from: the indices of its process, bins
// and balls (or balls per bin) in the Axes, its parameter values and its
// dynamic cell's values.
type Origin struct {
	Proc, Bin, Ball int
	Combo           map[string]string
	Dynamic         map[string]string
}

// Expanded are the grid points of Axes in order (processes slowest, then
// bins, balls, parameter combinations, dynamic cells), with their hashes,
// and the parameters some point kept.
type Expanded struct {
	Specs  []*core.Spec
	Hashes []string
	Used   map[string]bool
}

// Expansion says what to do where a point cannot be made or repeats
// another. Each function returns the error to stop with, or nil to go on.
type Expansion struct {
	// Lookup: the process at index i is not in the catalogue.
	Lookup func(i int, err error) error
	// Spec: core.NewSpec refused the point.
	Spec func(o Origin, err error) error
	// Duplicate: the point has the hash of an earlier one (one experiment
	// under two spellings). With nil returned the point is kept.
	Duplicate func(prev, here Origin) error
	// Each, if not nil, sees every point made, in order.
	Each func(s *core.Spec) error
}

// Expand makes every grid point of a: each process once per combination
// of bins, balls, the values of the parameters it takes
// (process.Entry.Combos, which leaves out a parameter the combination's mode
// ignores) and the dynamic cells, the last varying fastest. It is the one
// expansion behind balloc run's lists and sweep files.
func Expand(a Axes, x Expansion) (*Expanded, error) {
	out := &Expanded{Used: map[string]bool{}}
	byHash := map[string]Origin{}
	for pi, name := range a.Processes {
		proc, err := process.Lookup(name)
		if err != nil {
			return nil, x.Lookup(pi, err)
		}
		combos, kept := proc.Combos(a.Params)
		for k := range kept {
			out.Used[k] = true
		}
		for bi, n := range a.Bins {
			if err := expandBalls(a, x, out, byHash, Origin{Proc: pi, Bin: bi}, n, combos); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// expandBalls makes the points of one process and one number of bins.
func expandBalls(a Axes, x Expansion, out *Expanded, byHash map[string]Origin, o Origin, n uint64, combos []map[string]string) error {
	ms := a.Balls
	if a.PerBin != nil {
		ms = make([]uint64, len(a.PerBin)) // Balls = 0: NewSpec multiplies
	}
	for mi, m := range ms {
		for _, combo := range combos {
			for _, dc := range a.Dynamic {
				c := a.Common
				c.Bins, c.Balls = n, m
				if a.PerBin != nil {
					c.BallsPerBin = a.PerBin[mi]
				}
				c.Dynamic = dc.Settings
				c.Dynamic.Phases = slices.Clone(dc.Settings.Phases)
				here := Origin{Proc: o.Proc, Bin: o.Bin, Ball: mi, Combo: combo, Dynamic: dc.Values}
				if err := expandPoint(a.Processes[o.Proc], c, here, x, out, byHash); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// expandPoint makes one grid point and adds it, unless it repeats one.
func expandPoint(name string, c core.Common, here Origin, x Expansion, out *Expanded, byHash map[string]Origin) error {
	s, err := core.NewSpec(name, here.Combo, c)
	if err != nil {
		return x.Spec(here, err)
	}
	h := s.Hash()
	if prev, ok := byHash[h]; ok {
		if err := x.Duplicate(prev, here); err != nil {
			return err
		}
	}
	byHash[h] = here
	if x.Each != nil {
		if err := x.Each(s); err != nil {
			return err
		}
	}
	out.Specs = append(out.Specs, s)
	out.Hashes = append(out.Hashes, h)
	return nil
}
