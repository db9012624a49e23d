package core

import (
	"fmt"
	"maps"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// --initial (core/process/initial.go says what each form means): a setting
// of every process, given among the process parameters (so that lists and
// sweep files' [params] carry it) but held by the spec, like --weights.

// withoutInitial splits --initial off the parameters the process sees.
func withoutInitial(set map[string]string) (rest map[string]string, initial string, given bool) {
	initial, given = set["initial"]
	if !given {
		return set, "", false
	}
	rest = maps.Clone(set)
	delete(rest, "initial")
	return rest, initial, true
}

// Conserving is a process whose balls stay in the system (rbb): its initial
// vector is its --balls balls, and its default start is rbb's own.
type Conserving interface {
	// DefaultInitial is the start when --initial is not given.
	DefaultInitial() string
	// Steps is what --checkpoints divide (rbb's rounds), in place of --balls.
	Steps() uint64
}

func (s *Spec) setInitial(v string, given bool) error {
	if !given {
		v = "zero"
		if c, ok := s.Proc.(Conserving); ok {
			v = c.DefaultInitial()
		}
	}
	return process.InitialParam(&s.Initial).Set(v)
}

// fixesBins reports whether the process's structure sets the bins (a graph).
func (s *Spec) fixesBins() bool {
	_, ok := s.Proc.(process.BinsSource)
	return ok
}

// resolveInitial checks --initial against the bins, the balls and the
// engine, once both are known.
func (s *Spec) resolveInitial() error {
	_, conserving := s.Proc.(Conserving)
	if s.Initial.Kind == process.InitialFixedPoint && !s.Dynamic.Supermarket() {
		return fmt.Errorf("--initial fixed-point: the supermarket model's fixed point (a start for --arrival-rate runs); %s without it has none", s.Process.Name)
	}
	if err := s.Initial.Resolve(s.Bins, s.Balls, conserving); err != nil {
		return err
	}
	if s.Initial.IsZero() {
		return nil
	}
	if s.Dynamic.On() {
		return s.resolveDynamicInitial() // supermarket_initial.go
	}
	if w, ok := s.Proc.(process.InitialWhy); ok && w.InitialWhy() != "" {
		return fmt.Errorf("--initial %s: %s", s.Initial.String(), w.InitialWhy())
	}
	if s.isVector {
		return fmt.Errorf("--initial %s: the vector engine (idea, --dims) starts from empty bins; leave --initial out", s.Initial.String())
	}
	if !conserving && s.Balls > maxThrown-s.Initial.Total() {
		return fmt.Errorf("--initial %s: %s initial balls and --balls %s are more than 2^63 in all", s.Initial.String(), units.FormatCount(s.Initial.Total()), units.FormatCount(s.Balls))
	}
	return nil
}

// maxThrown bounds initial plus thrown balls (loads are uint64).
const maxThrown = 1 << 63

// InitialBalls is W0, the balls the trial starts with (0 for zero; rbb's m).
func (s *Spec) InitialBalls() uint64 { return s.Initial.Total() }
