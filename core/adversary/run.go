package adversary

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/kernels"
)

// MaxWidth is the largest width of the modulated rule: its coin is
// Bounded(2w) in 32 bits.
const MaxWidth = 1 << 30

// Rule is a placement rule: Greedy, the modulated rule of width Width ≥ 1,
// or the one-choice baseline.
type Rule struct {
	Width     uint32 // the modulated rule's; 0 for the others
	OneChoice bool   // the first of the two bins, whatever the loads
}

// Greedy is Greedy[2].
var Greedy = Rule{}

// OneChoice is the baseline that ignores loads: each ball goes to the
// first of its two bins, a uniform bin (the pairs are drawn as Greedy's,
// so the three rules see the same pairs).
var OneChoice = Rule{OneChoice: true}

// Modulated is the modulated rule of width w (1 ≤ w ≤ MaxWidth).
func Modulated(w uint32) Rule { return Rule{Width: w} }

func (r Rule) String() string {
	switch {
	case r.OneChoice:
		return "one-choice"
	case r.Width == 0:
		return "greedy"
	}
	return fmt.Sprintf("modulated (w = %d)", r.Width)
}

// DefaultWidth is the modulated rule's width when none is given:
// ⌈log₂ P⌉ for a peak of P balls present, at least 1.
func DefaultWidth(peak uint32) uint32 {
	if peak <= 2 {
		return 1
	}
	return uint32(bits.Len32(peak - 1))
}

// Trial is one run of a sequence.
type Trial struct {
	FinalGap float64   // max load − present/n after the last operation
	MaxGap   float64   // the largest gap after any operation
	Overload float64   // the largest max load − peak/n
	At       []float64 // the gap after each checkpoint's operation
}

// CheckpointOps returns the operation counts ⌊k·T/K⌋, k = 1 … K, for T
// operations (repeats dropped): where a run's gap is read.
func CheckpointOps(ops, k int) []int {
	var at []int
	for i := 1; i <= k; i++ {
		c := int(uint64(i) * uint64(ops) / uint64(k))
		if c > 0 && (len(at) == 0 || at[len(at)-1] != c) {
			at = append(at, c)
		}
	}
	return at
}

// RunTrial runs trial `trial` of seq on n bins with rule, reading the gap
// after each operation count in at (increasing, each ≤ len(seq.Ops)). st,
// if not nil, is reused (NewState).
func RunTrial(seq *Seq, n int, rule Rule, seed, trial uint64, at []int, st *kernels.Adversary) Trial {
	if st == nil {
		st = NewState(seq, n)
	} else {
		st.Reset()
	}
	r := kernels.TrialStream(seed, trial, kernels.LaneChoices)
	coins := kernels.TrialStream(seed, trial, kernels.LaneNoise)
	nf := float64(n)
	gap := func() float64 { return float64(st.Max) - float64(st.Present)/nf }
	res := Trial{At: make([]float64, 0, len(at))}
	done := 0
	for _, c := range append(slices.Clip(at), len(seq.Ops)) {
		part := seq.Ops[done:c]
		switch {
		case rule.OneChoice:
			st.OneChoice(part, &r)
		case rule.Width == 0:
			st.Greedy(part, &r)
		default:
			st.Modulated(part, &r, &coins, rule.Width)
		}
		done = c
		if len(res.At) < len(at) {
			res.At = append(res.At, gap())
		}
	}
	res.FinalGap = gap()
	res.MaxGap = float64(st.MaxGapN) / nf
	res.Overload = float64(st.Top) - float64(st.Peak)/nf
	return res
}

// NewState allocates a trial's state for seq on n bins.
func NewState(seq *Seq, n int) *kernels.Adversary { return kernels.NewAdversary(n, seq.Inserts) }

// Bytes is the memory a trial's state takes: loads, level counts and each
// ball's bin, beside the sequence's own 4 bytes an operation.
func Bytes(seq *Seq, n int) uint64 {
	return 4*uint64(n) + 4*(uint64(seq.Inserts)+2) + 4*uint64(seq.Inserts)
}

// Summary is a rule's trials: means and standard errors.
type Summary struct {
	Rule                 Rule
	Trials               int
	FinalGap, FinalGapSE float64
	MaxGap, MaxGapSE     float64
	Overload, OverloadSE float64
	At, AtSE             []float64
}

// Run runs trials of seq under rule on n bins, trials spread over workers
// (each a pure function of its index, so the result is the same for any
// number of workers), and summarises them.
func Run(seq *Seq, n int, rule Rule, seed uint64, trials, workers int, at []int) Summary {
	res := make([]Trial, trials)
	workers = max(1, min(workers, trials, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := NewState(seq, n)
			for k := w; k < trials; k += workers {
				res[k] = RunTrial(seq, n, rule, seed, uint64(k), at, st)
			}
		}()
	}
	wg.Wait()
	s := Summary{Rule: rule, Trials: trials}
	s.FinalGap, s.FinalGapSE = meanSE(res, func(t Trial) float64 { return t.FinalGap })
	s.MaxGap, s.MaxGapSE = meanSE(res, func(t Trial) float64 { return t.MaxGap })
	s.Overload, s.OverloadSE = meanSE(res, func(t Trial) float64 { return t.Overload })
	for i := range at {
		m, se := meanSE(res, func(t Trial) float64 { return t.At[i] })
		s.At, s.AtSE = append(s.At, m), append(s.AtSE, se)
	}
	return s
}

func meanSE(res []Trial, f func(Trial) float64) (float64, float64) {
	xs := make([]float64, len(res))
	var sum float64
	for i, t := range res {
		xs[i] = f(t)
		sum += xs[i]
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	return mean, stats.StdErr(xs, mean)
}

// ErrWidthUnused is ParseRules' refusal of a width for a list of rules
// without the modulated rule.
var ErrWidthUnused = errors.New("a width is the modulated rule's, which the list does not run")

// ParseRules reads a comma-separated list of rules, each named once:
// greedy, modulated and one-choice, in that order whatever the list's (the
// order balloc adversary prints them in). The modulated rule has width w,
// or DefaultWidth(peak) when w is 0; a width given for a list without the
// modulated rule is refused, as a setting that would do nothing.
func ParseRules(list string, w, peak uint32) ([]Rule, error) {
	seen := map[string]bool{}
	for _, r := range strings.Split(list, ",") {
		switch {
		case seen[r]:
			return nil, fmt.Errorf("%s twice", r)
		case r != "greedy" && r != "modulated" && r != "one-choice":
			return nil, fmt.Errorf("%q is not a rule; want greedy, modulated or one-choice", r)
		}
		seen[r] = true
	}
	if w != 0 && !seen["modulated"] {
		return nil, ErrWidthUnused
	}
	if w == 0 {
		w = DefaultWidth(peak)
	}
	var rules []Rule
	for _, r := range []struct {
		name string
		rule Rule
	}{{"greedy", Greedy}, {"modulated", Modulated(w)}, {"one-choice", OneChoice}} {
		if seen[r.name] {
			rules = append(rules, r.rule)
		}
	}
	return rules, nil
}
