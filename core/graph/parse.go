package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Clean says what to do with self-loops and duplicate edges in a file.
type Clean int

const (
	CleanRefuse Clean = iota // an error that counts them and names the flag that drops them
	CleanDrop                // drop them, and say how many in Origin
)

// Options are the settings a graph spec needs besides its text.
type Options struct {
	// Seed chooses generated graphs: they draw from StructureStream(Seed),
	// once per run, so every trial of a run sees the same graph.
	Seed  uint64
	Clean Clean
}

// StructureStream is the generator of a run's random graph or hypergraph: a
// lane of its own, apart from every trial's streams.
func StructureStream(seed uint64) kernels.PCG32 {
	return kernels.TrialStream(seed, math.MaxUint64, kernels.LaneStructure)
}

// Families lists the --graph forms, for help and errors.
const Families = "cycle:n, path:n, torus:a,b[,c...], hypercube:k, complete:n, random-regular:n,d, joined-expanders:n,d,k[,seed], erdos-renyi:n,p or file:PATH"

// Parse builds the graph a --graph value names.
func Parse(spec string, opt Options) (*Graph, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("--graph %q: want %s", spec, Families)
	}
	if kind == "file" {
		return ReadGraphFile(spec, arg, opt.Clean)
	}
	nums := strings.Split(arg, ",")
	count := func(i int) (uint64, error) {
		x, err := units.ParseCount(strings.TrimSpace(nums[i]))
		if err != nil {
			return 0, fmt.Errorf("--graph %s: %v", spec, err)
		}
		return x, nil
	}
	want := func(k int, form string) error {
		if len(nums) != k {
			return fmt.Errorf("--graph %s: want %s", spec, form)
		}
		return nil
	}
	switch kind {
	case "cycle", "path", "complete", "hypercube":
		form := kind + ":n"
		if kind == "hypercube" {
			form = "hypercube:k"
		}
		if err := want(1, form); err != nil {
			return nil, err
		}
		x, err := count(0)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "cycle":
			return newCycle(spec, x)
		case "path":
			return newPath(spec, x)
		case "complete":
			return newComplete(spec, x)
		}
		return newHypercube(spec, x)
	case "torus":
		sides := make([]uint64, len(nums))
		for i := range nums {
			x, err := count(i)
			if err != nil {
				return nil, err
			}
			sides[i] = x
		}
		return newTorus(spec, sides)
	case "random-regular":
		if err := want(2, "random-regular:n,d"); err != nil {
			return nil, err
		}
		n, err := count(0)
		if err != nil {
			return nil, err
		}
		d, err := count(1)
		if err != nil {
			return nil, err
		}
		rng := StructureStream(opt.Seed)
		return RandomRegular(spec, n, d, &rng)
	case "joined-expanders":
		if len(nums) != 3 && len(nums) != 4 {
			return nil, fmt.Errorf("--graph %s: want joined-expanders:n,d,k[,seed]", spec)
		}
		var x [4]uint64
		for i := range nums {
			v, err := count(i)
			if err != nil {
				return nil, err
			}
			x[i] = v
		}
		rng := StructureStream(opt.Seed)
		if len(nums) == 4 {
			rng = StructureStream(x[3])
		}
		return JoinedExpanders(spec, x[0], x[1], x[2], &rng)
	case "erdos-renyi":
		if err := want(2, "erdos-renyi:n,p"); err != nil {
			return nil, err
		}
		n, err := count(0)
		if err != nil {
			return nil, err
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(nums[1]), 64)
		if err != nil || !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("--graph %s: p = %q: want a probability in [0, 1]", spec, nums[1])
		}
		rng := StructureStream(opt.Seed)
		return ErdosRenyi(spec, n, p, &rng)
	}
	return nil, fmt.Errorf("--graph %q: unknown family %q; want %s", spec, kind, Families)
}
