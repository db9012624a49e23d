package balloc

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Rule is an allocation rule of your own. Set Config.Rule (and leave
// Process and Params empty) to run it: each trial asks NewTrial for the
// trial's own TrialRule, then asks it, ball by ball, for the bin of the
// next ball.
//
// A trial's TrialRule is used by that trial alone, on one goroutine, so it
// may keep state (counters, a cache of bins) without locks; trials run in
// parallel under RunParallel, each with its own. For the results not to
// depend on the number of workers, a rule's choices must depend only on
// its trial's arguments: its trial number, the ball number, the loads and
// the draws from r, not on state shared between trials.
type Rule interface {
	// NewTrial returns the state of trial `trial` (0-based), before its
	// first ball.
	NewTrial(trial int) TrialRule
}

// TrialRule is one trial of a Rule.
type TrialRule interface {
	// Choose returns the bin, 0 ≤ bin < len(loads), that receives ball
	// `ball` (0-based: ball balls are already placed). loads are the
	// current loads, to read only; r is the trial's random source.
	Choose(ball uint64, loads []uint32, r *Rand) int
}

// RuleFunc is a Rule without state of its own: the function is called for
// every ball of every trial (from several goroutines at once under
// RunParallel).
type RuleFunc func(trial int, ball uint64, loads []uint32, r *Rand) int

// NewTrial binds the function to trial.
func (f RuleFunc) NewTrial(trial int) TrialRule { return funcTrial{f, trial} }

// funcTrial is a RuleFunc bound to its trial.
type funcTrial struct {
	f     RuleFunc
	trial int
}

func (t funcTrial) Choose(ball uint64, loads []uint32, r *Rand) int {
	return t.f(t.trial, ball, loads, r)
}

// Rand is a trial's random source: PCG32 on the stream of (Seed, trial),
// the one the built-in processes draw their bins from, so a rule that
// draws as a built-in process does places its balls exactly: Intn(n) once
// a ball is one-choice; two draws, the second bin taken only when
// strictly lighter, is two-choice.
type Rand struct{ p kernels.PCG32 }

// Intn returns a uniform integer in [0, n), n > 0, by Lemire's method (no
// bias): from one 32-bit output, as the built-in processes draw a bin,
// when n < 2^32, else from 64-bit draws.
func (r *Rand) Intn(n int) int {
	if uint64(n) <= math.MaxUint32 {
		return int(r.p.Bounded(uint32(n)))
	}
	return int(r.p.Bounded64(uint64(n)))
}

// Float64 returns a uniform float64 in [0, 1).
func (r *Rand) Float64() float64 { return r.p.Float64() }

// Uint64 returns 64 uniform bits.
func (r *Rand) Uint64() uint64 { return r.p.Uint64() }

// ruleChunk is the balls a Rule places between looks at the context and
// calls of Config.Progress: tens of microseconds at an interface call a
// ball.
const ruleChunk = 1 << 14

// newRuleSpec validates a Config with a Rule: the settings a user's loop
// on a flat array of 32-bit loads can honour.
func newRuleSpec(c Config) (*Spec, error) {
	switch {
	case c.Process != "" || len(c.Params) > 0:
		return nil, fmt.Errorf("balloc: Config sets both Rule and Process %q (or Params); give one", c.Process)
	case c.Bins == 0 || c.Bins > math.MaxInt32:
		return nil, fmt.Errorf("balloc: Bins = %d: a Rule runs on 1 to 2^31 − 1 bins", c.Bins)
	case c.Balls >= math.MaxUint32:
		return nil, fmt.Errorf("balloc: Balls = %d: a Rule runs up to 2^32 − 2 balls (32-bit loads)", c.Balls)
	case c.Checkpoints > c.Balls:
		return nil, fmt.Errorf("balloc: Checkpoints = %d: want at most Balls (%d), one checkpoint per ball at most", c.Checkpoints, c.Balls)
	case c.Engine == EngineHistogram:
		return nil, errors.New("balloc: Engine = \"histogram\": a Rule runs on its own loop over every bin's load; leave Engine empty")
	case c.Supermarket != nil || c.Deletions != nil:
		return nil, errors.New("balloc: a Rule places balls only: Supermarket and Deletions need a process of the catalogue")
	case c.Initial != "":
		return nil, errors.New("balloc: Initial: a Rule starts from empty bins")
	case c.Theory:
		return nil, errors.New("balloc: Theory: no fluid limit for a Rule of one's own")
	}
	return &Spec{rule: c.Rule, c: c}, nil
}

// runRule is trial k of a user's rule: one interface call a ball, the
// state measured as the engines measure theirs (result.MeasureLoads) at
// the same checkpoints.
func (s *Spec) runRule(ctx context.Context, k int, progress func(uint64)) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	com := commonOf(s.c)
	loads := make([]uint32, s.c.Bins)
	r := &Rand{p: kernels.TrialStream(s.c.Seed, uint64(k), kernels.LaneChoices)}
	tr := s.rule.NewTrial(k)
	res := &result.Result{Trial: uint64(k), Engine: string(EngineDirect), Balls: s.c.Balls}
	t := uint64(0)
	for _, target := range com.CheckpointTargets(s.c.Balls) {
		for t < target {
			start, end := t, min(target, t+ruleChunk)
			for ; t < end; t++ {
				i := tr.Choose(t, loads, r)
				if i < 0 || i >= len(loads) {
					return Result{}, fmt.Errorf("balloc: Rule %T chose bin %d of %d for ball %d of trial %d", s.rule, i, len(loads), t, k)
				}
				loads[i]++
			}
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			if progress != nil {
				progress(end - start)
			}
		}
		snap := result.MeasureLoads(loads, t, com.Alpha)
		snap.Balls = t
		if com.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.Checkpoint())
		}
		if t == s.c.Balls {
			res.Fill(snap, com.Alpha)
		}
	}
	if s.c.KeepLoads {
		res.Loads = make([]float64, len(loads))
		for i, v := range loads {
			res.Loads[i] = float64(v)
		}
	}
	return s.resultOf(res), nil
}
