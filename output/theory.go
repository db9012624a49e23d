package output

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// TheoryCheck follows a run's specs for the theory beside them (Table's
// theory): a spec of balls in 2 or more dimensions is refused; a mixed
// list shows "–" for a spec without a fluid limit, and only a list where
// none has one is refused (Err).
type TheoryCheck struct {
	any  bool  // some spec has a fluid limit (or the supermarket's fixed point)
	none error // the first spec without one
}

// Add checks one spec.
func (th *TheoryCheck) Add(s *core.Spec) error {
	if s.Dims() > 1 {
		return errors.New("no fluid limit for balls of --dims 2 or more")
	}
	switch {
	case s.Dynamic.Supermarket():
		th.any = true // its fixed point (core.SupermarketTheory)
	case s.Dynamic.Deletions():
		th.none = cmp.Or(th.none, fmt.Errorf("no fluid limit with deletions (--delete-prob, --phases)"))
	default:
		if _, err := core.FluidOf(s); err != nil {
			th.none = cmp.Or(th.none, err)
		} else {
			th.any = true
		}
	}
	return nil
}

// Err is nil when some spec added has a fluid limit (or the supermarket's
// fixed point), else why the first has none and which processes have one.
func (th *TheoryCheck) Err() error {
	if th.any {
		return nil
	}
	return fmt.Errorf("%v (balloc has fluid limits for unit-weight %s)", th.none, fluidNames())
}

func fluidNames() string {
	var names []string
	for _, p := range process.Entries() {
		if p.HasFluid() {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", ")
}
