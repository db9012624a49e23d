package core

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Engine names a way to run a trial (README, Engines).
type Engine string

const (
	EngineAuto      Engine = "auto"
	EngineDirect    Engine = "direct"
	EngineHistogram Engine = "histogram"
)

// Common holds the settings every process shares.
type Common struct {
	Bins, Balls uint64
	Trials      int
	Seed        uint64
	Engine      Engine
	Checkpoints uint64 // snapshots; 0 for the final state only
	// CheckpointsLog spaces the Checkpoints geometrically from n to m
	// (--checkpoints log:K, CheckpointTargets) instead of evenly.
	CheckpointsLog bool
	Alpha          float64 // α of the exponential potential Φ_α
	KeepLoads      bool    // return the final load of every bin in Result.Loads
	// BallsPerBin, when set (Balls = 0), makes Balls = BallsPerBin × Bins
	// once the bins are known (a graph may fix them).
	BallsPerBin uint64
	// LevelBatch, when set, forces the histogram engine's level batches of
	// d-choice and (1+β) to this many balls (tests run the batched path on
	// tiny n, where it would otherwise go ball by ball). No flag sets it.
	LevelBatch uint64
	// Dynamic: balls that leave (the supermarket model, deletions;
	// core/dynamic.go). The zero value is the static process.
	Dynamic Dynamic
}

// Spec is a validated experiment: one process with its parameters and the
// common settings. Only NewSpec makes one.
type Spec struct {
	Process *process.Entry  // the catalogue entry
	Proc    process.Process // the process with its parameters
	Weights process.Weights // ball weights, for a weighted process
	Initial process.Initial // the loads a trial starts from (--initial; initial.go)
	Common
	engine    Engine // resolved
	engineWhy string // why auto chose it; empty when chosen by the user
	vector    process.VectorRun
	isVector  bool // runs on the vector engine (core/process/idea.go)
	// values is process.Values of Proc and Weights, taken once by NewSpec:
	// every trial's result carries the parameters, and building them from
	// the process's Params is most of a 20-ball trial's time (nil: a Spec
	// not made by NewSpec takes them each time).
	values map[string]any
}

// SpecOption sets a parameter that has no command-line form, before NewSpec
// validates the spec.
type SpecOption func(*Spec)

// WithAges gives tau-delay --delay empirical its law of ages (ages[a] reads
// of age a), from source (for output).
func WithAges(ages []uint64, source string) SpecOption {
	return func(s *Spec) {
		if p, ok := s.Proc.(process.AgeSource); ok {
			p.SetAges(process.AgesFromWeights(ages), source)
		}
	}
}

// WithReplay gives tau-delay --delay replay its age per ball (ages[k] for
// ball k), from source (for output). The slice is kept, not copied.
func WithReplay(ages []uint32, source string) SpecOption {
	return func(s *Spec) {
		if p, ok := s.Proc.(process.AgeSource); ok {
			p.SetReplay(ages, source)
		}
	}
}

// NewSpec validates a process name, the raw values of the parameters the
// user set (by flag name, without dashes) and the common settings. Every
// error is one line naming the offending flag and what it accepts.
func NewSpec(name string, set map[string]string, c Common, opts ...SpecOption) (*Spec, error) {
	e, err := process.Lookup(name)
	if err != nil {
		return nil, err
	}
	s := &Spec{Process: e, Proc: e.New(), Common: c}
	for _, opt := range opts {
		opt(s)
	}
	set, initial, initialGiven := withoutInitial(set)
	if err := process.Apply(s.Proc, set, &s.Weights); err != nil {
		return nil, err
	}
	if err := s.setInitial(initial, initialGiven); err != nil {
		return nil, err
	}
	if why := TrialsRule(uint64(max(0, s.Trials))); why != "" {
		return nil, fmt.Errorf("--trials %d: %s", s.Trials, why)
	}
	if why := AlphaRule(s.Alpha); why != "" {
		return nil, fmt.Errorf("--alpha %v: %s", s.Alpha, why)
	}
	given := map[string]bool{}
	for k := range set {
		given[k] = true
	}
	if s.Bins != 0 {
		if err := s.perBin(); err != nil {
			return nil, err
		}
	}
	if s.Bins == 0 && s.Initial.FileBins() > 0 && !s.fixesBins() {
		s.Bins = s.Initial.FileBins() // n from --initial file:PATH
		if err := s.perBin(); err != nil {
			return nil, err
		}
	}
	su := &process.Setup{Bins: s.Bins, Balls: s.Balls, Seed: s.Seed, Weights: s.Weights, Given: given}
	if err := s.Proc.Check(su); err != nil {
		return nil, err
	}
	s.Bins = su.Bins
	if err := s.perBin(); err != nil {
		return nil, err
	}
	if err := s.checkDynamic(); err != nil {
		return nil, err
	}
	if v, ok := s.Proc.(process.Vector); ok {
		s.vector, s.isVector = v.Vector(s.Bins)
	}
	if err := s.resolveInitial(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	s.values = process.Values(s.Proc, s.Weights)
	return s, nil
}

// perBin sets Balls from --balls-per-bin once the bins are known.
func (s *Spec) perBin() error {
	if s.BallsPerBin == 0 || s.Bins == 0 {
		return nil
	}
	if s.Balls != 0 {
		return fmt.Errorf("--balls-per-bin: give --balls or --balls-per-bin, not both")
	}
	if s.BallsPerBin > math.MaxUint64/s.Bins {
		return fmt.Errorf("--balls-per-bin %d × %d bins overflows", s.BallsPerBin, s.Bins)
	}
	s.Balls, s.BallsPerBin = s.BallsPerBin*s.Bins, 0
	return nil
}

// The rules for the common settings that balloc run's flags, sweep files
// (grid.go) and NewSpec share live here once: each says why a value is
// refused ("" when it is not), and the caller names the culprit (a flag, or
// a sweep file's key).

// maxTrials bounds --trials (trial indices stay far inside every stream).
const maxTrials = 1 << 31

// TrialsRule says why a trial count is refused.
func TrialsRule(trials uint64) string {
	if trials < 1 || trials > maxTrials {
		return "want 1 to 2^31 trials"
	}
	return ""
}

// AlphaRule says why an α of the potential Φ_α is refused.
func AlphaRule(alpha float64) string {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || math.Abs(alpha) > 1e6 {
		return "want a real number with |α| ≤ 1e6"
	}
	return ""
}

// ParseAlpha reads α (a real number; AlphaRule checks the rest).
func ParseAlpha(v string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(v), 64)
}

func (s *Spec) validate() error {
	n, m := s.Bins, s.Balls
	if n < 1 {
		return fmt.Errorf("--bins %d: want at least 1 bin", n)
	}
	if s.CheckpointsLog {
		if _, ok := s.Proc.(Conserving); ok || s.Dynamic.On() {
			return fmt.Errorf("--checkpoints log:%d: log spacing is for balls thrown one by one; %s takes K evenly spaced (--checkpoints %d)", s.Checkpoints, s.Process.Name, s.Checkpoints)
		}
	}
	if c, ok := s.Proc.(Conserving); ok {
		if s.Checkpoints > c.Steps() {
			return fmt.Errorf("--checkpoints %d: want at most --rounds (%d), one checkpoint per round at most", s.Checkpoints, c.Steps())
		}
	} else if s.Checkpoints > m {
		return fmt.Errorf("--checkpoints %d: want at most --balls (%d), one checkpoint per ball at most", s.Checkpoints, m)
	}
	if s.Dynamic.On() {
		return s.dynamicEngine()
	}
	if w := s.Weights; w.Kind != process.WeightsUnit && float64(m)*w.Mean() > 1e300 {
		return fmt.Errorf("--weights %s: %s balls of mean weight %g weigh %g in all, beyond the 1e300 that float64 loads hold; lower the weights or --balls", w, units.FormatCount(m), w.Mean(), float64(m)*w.Mean())
	}
	canHist, why := histogramSupports(s)
	switch s.Engine {
	case EngineAuto, "":
		// From the spec alone, never from the machine: the engine decides
		// which random draws a trial makes (the cost model in choose.go).
		s.engine, s.engineWhy = EngineDirect, "the histogram engine cannot run it: "+why
		if canHist {
			s.engine, s.engineWhy = autoEngine(s)
		}
	case EngineDirect:
		s.engine = EngineDirect
	case EngineHistogram:
		if !canHist {
			return fmt.Errorf("--engine histogram: %s; use --engine direct", why)
		}
		s.engine = EngineHistogram
	default:
		return fmt.Errorf("--engine %q: want auto, direct or histogram", s.Engine)
	}
	if pt, ok := s.Proc.(process.PositionalTies); ok && s.engine == EngineDirect && s.Initial.Span() > 0 && pt.PositionalTies() != "" {
		if (s.Engine != EngineAuto && s.Engine != "") || !canHist {
			return fmt.Errorf("--initial %s: %s; use --engine histogram (exact on levels) or a start with every bin at one load", s.Initial.String(), pt.PositionalTies())
		}
		s.engine, s.engineWhy = EngineHistogram, "from an --initial vector with unequal loads the direct loop's ties by position are not random ties"
	}
	if s.engine == EngineDirect && n > kernels.MaxBins {
		if canHist {
			return fmt.Errorf("--bins %d: the direct engine holds at most %d bins; use --engine histogram (or auto)", n, uint64(kernels.MaxBins))
		}
		return fmt.Errorf("--bins %d: the direct engine holds at most %d bins (32-bit bin indices), and %s cannot run on the histogram engine: %s", n, uint64(kernels.MaxBins), s.Process.Name, why)
	}
	if s.engine == EngineHistogram && n > hist.MaxBins {
		return fmt.Errorf("--bins %d: the histogram engine holds at most 2^50 bins (counts exact in float64 binomials)", n)
	}
	if s.engine == EngineDirect && !s.isVector {
		_, unit := s.Proc.(process.Direct)
		_, real := s.Proc.(process.DirectWeighted)
		if _, ok := s.Proc.(process.Leaking); ok {
			unit = true // its rounds are the engine's own (core/engine/leaky.go)
		}
		switch {
		case s.Weights.Unit() && !unit:
			return fmt.Errorf("%s has no loop on the direct engine", s.Process.Name)
		case !s.Weights.Unit() && !real:
			return fmt.Errorf("--weights %s: %s has no loop for random weights", s.Weights, s.Process.Name)
		}
	}
	return nil
}

// Vector is how the vector engine runs s (core/engine/vector.go), and
// whether it does.
func (s *Spec) Vector() (process.VectorRun, bool) { return s.vector, s.isVector }

// ResolvedEngine is the engine RunTrial uses (auto resolved).
func (s *Spec) ResolvedEngine() Engine { return s.engine }

// EngineReason says why auto chose the engine, in words (empty when the
// user named it).
func (s *Spec) EngineReason() string { return s.engineWhy }

// ParamsMap returns the parameters the process uses, by name, for output:
// those it shows (process.Param's rules), and the weights unless unit.
func (s *Spec) ParamsMap() map[string]any {
	m := maps.Clone(s.values)
	if m == nil {
		m = process.Values(s.Proc, s.Weights)
	}
	m = s.dynamicParams(m)
	if !s.Initial.IsZero() {
		m["initial"] = s.Initial.String()
	}
	return m
}

// ParamsText is ParamsMap as "d=2 beta=0.5", in flag order.
func (s *Spec) ParamsText() string { return process.ValuesText(s.ParamsMap()) }

// BinsCulprit names what sets the bins: --bins, or the graph or hyperedge
// file that fixes them.
func (s *Spec) BinsCulprit() (culprit, hint string) {
	if b, ok := s.Proc.(process.BinsSource); ok {
		return b.BinsCulprit()
	}
	return "--bins " + units.FormatCount(s.Bins), "lower --bins"
}

// Dims is the dimensions of a ball: 1 for scalar balls.
func (s *Spec) Dims() int {
	if d, ok := s.Proc.(process.Dimensional); ok {
		return d.Dimensions()
	}
	return 1
}

// HasHistogram reports whether the spec's results carry a load histogram:
// integer loads (unit or constant weights) of scalar balls.
func (s *Spec) HasHistogram() bool { return s.Weights.Unit() && s.Dims() <= 1 }
