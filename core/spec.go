package core

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
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
	Checkpoints uint64  // evenly spaced snapshots; 0 for the final state only
	Alpha       float64 // α of the exponential potential Φ_α
	KeepLoads   bool    // return the final load of every bin in Result.Loads
	// BallsPerBin, when set (Balls = 0), makes Balls = BallsPerBin × Bins
	// once the bins are known (a graph may fix them).
	BallsPerBin uint64
}

// Spec is a validated experiment: one process with its parameters and the
// common settings. Only NewSpec makes one.
type Spec struct {
	Process *Process
	Params  Params
	Common
	engine    Engine            // resolved
	engineWhy string            // why auto chose it; empty when chosen by the user
	rhoTable  *kernels.RhoTable // rho-noisy-comp's exact coins, built once
	ages      *kernels.Ages     // tau-delay --delay empirical: the law of an age

	graph *graph.Graph          // graphical
	haar  *haar.Plan            // graphical --strategy haar
	topo  *kernels.Topology     // graphical, fewer than 2^32 edges
	wide  *kernels.WideTopology // graphical, implicit with 2^32 edges or more
	hyper *graph.Hypergraph     // hypergraph
	htopo *kernels.HyperTopo    // hypergraph, as the loop sees it
}

// NewSpec validates a process name, the raw values of the parameters the
// user set (by flag name, without dashes) and the common settings. Every
// error is one line naming the offending flag and what it accepts.
func NewSpec(process string, set map[string]string, c Common, opts ...SpecOption) (*Spec, error) {
	p, err := LookupProcess(process)
	if err != nil {
		return nil, err
	}
	s := &Spec{Process: p, Common: c}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		def := paramDef(name)
		if def == nil {
			return nil, fmt.Errorf("--%s is not a process parameter", name)
		}
		if !p.Takes(name) {
			return nil, fmt.Errorf("--%s does not apply to %s (%s)", name, p.Name, p.takesText())
		}
		if err := def.set(&s.Params, set[name]); err != nil {
			return nil, err
		}
	}
	for _, opt := range opts {
		opt(&s.Params)
	}
	_, tauSet := set["tau"]
	for _, name := range append(p.Params, "weights") {
		if _, ok := set[name]; ok || !p.Takes(name) {
			continue
		}
		empirical := s.Params.Delay == kernels.DelayEmpirical
		if (name == "tau" && empirical) || (name == "ages" && (!empirical || s.Params.Ages != nil)) {
			continue // with --delay empirical τ comes from the ages, which only it takes
		}
		replay := s.Params.Delay == kernels.DelayReplay
		if (name == "tau" && replay) || (name == "replay" && (!replay || s.Params.Replay != nil)) {
			continue // likewise with --delay replay and its sequence
		}
		if name == "beta" && p.Kind == KindGraphical {
			continue // only --strategy one-plus-beta takes it; buildStructures checks
		}
		def := paramDef(name)
		if def.Default == "" {
			return nil, fmt.Errorf("%s needs --%s: %s", p.Name, name, def.required)
		}
		if err := def.set(&s.Params, def.Default); err != nil {
			panic(err) // defaults are constants and must parse
		}
	}
	if p.Fixed.D != 0 {
		s.Params.D = p.Fixed.D
	}
	if s.Process.Kind == KindTauDelay {
		empirical := s.Params.Delay == kernels.DelayEmpirical
		switch {
		case empirical && tauSet:
			return nil, fmt.Errorf("--tau: with --delay empirical τ is the largest age in --ages; leave --tau out")
		case !empirical && s.Params.Ages != nil:
			return nil, fmt.Errorf("--ages applies to --delay empirical only")
		case s.Params.Delay == kernels.DelayReplay:
			if err := s.checkReplay(tauSet); err != nil {
				return nil, err
			}
		case s.Params.Replay != nil:
			return nil, fmt.Errorf("--replay applies to --delay replay only")
		case empirical:
			ages := s.Params.Ages
			a, err := kernels.NewAges(ages.Age, ages.Count, ages.Tau)
			if err != nil {
				return nil, fmt.Errorf("--ages: %v", err)
			}
			s.ages = a
			s.Params.Tau = ages.Tau
		}
	}
	if err := s.buildStructures(set); err != nil {
		return nil, err
	}
	if err := s.checkIdea(set); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *Process) takesText() string {
	var names []string
	for _, q := range p.Params {
		names = append(names, "--"+q)
	}
	if p.Weighted {
		names = append(names, "--weights")
	}
	if len(names) == 0 {
		return "it takes no parameters"
	}
	return "it takes " + strings.Join(names, ", ")
}

func (s *Spec) validate() error {
	n, m := s.Bins, s.Balls
	if n < 1 {
		return fmt.Errorf("--bins %d: want at least 1 bin", n)
	}
	if s.Trials < 1 {
		return fmt.Errorf("--trials %d: want at least 1 trial", s.Trials)
	}
	if s.Checkpoints > m {
		return fmt.Errorf("--checkpoints %d: want at most --balls (%d), one checkpoint per ball at most", s.Checkpoints, m)
	}
	if w := s.Params.Weights; w.Kind != WeightsUnit && float64(m)*w.mean() > 1e300 {
		return fmt.Errorf("--weights %s: %s balls of mean weight %g weigh %g in all, beyond the 1e300 that float64 loads hold; lower the weights or --balls", w, FormatCount(m), w.mean(), float64(m)*w.mean())
	}
	if math.IsNaN(s.Alpha) || math.IsInf(s.Alpha, 0) || math.Abs(s.Alpha) > 1e6 {
		return fmt.Errorf("--alpha %v: want a real number with |α| ≤ 1e6", s.Alpha)
	}
	switch s.Process.Kind {
	case KindDChoice:
		if uint64(s.Params.D) > n {
			return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", s.Params.D, n)
		}
	case KindAlwaysGoLeft:
		if uint64(s.Params.D) > n || n%uint64(s.Params.D) != 0 {
			return fmt.Errorf("--d %d: always-go-left splits the bins into d equal groups, so d must divide --bins %d", s.Params.D, n)
		}
	}
	if s.Process.Kind == KindRhoNoisyComp {
		t, err := kernels.NewRhoTable(s.Params.Rho)
		if err != nil {
			return fmt.Errorf("--rho %s: %v", RhoString(s.Params.Rho), err)
		}
		s.rhoTable = t
	}
	hist, why := histogramSupports(s)
	if s.Params.Dims > 1 {
		hist, why = false, "multi-dimensional balls (--dims) run on the direct engine"
	}
	switch s.Engine {
	case EngineAuto, "":
		// From the spec alone, never from the machine: the engine decides
		// which random draws a trial makes (the cost model in engine.go).
		s.engine, s.engineWhy = EngineDirect, "the histogram engine cannot run it: "+why
		if hist {
			s.engine, s.engineWhy = autoEngine(s)
		}
	case EngineDirect:
		s.engine = EngineDirect
	case EngineHistogram:
		if !hist {
			return fmt.Errorf("--engine histogram: %s; use --engine direct", why)
		}
		s.engine = EngineHistogram
	default:
		return fmt.Errorf("--engine %q: want auto, direct or histogram", s.Engine)
	}
	if s.engine == EngineDirect && n > kernels.MaxBins {
		if hist {
			return fmt.Errorf("--bins %d: the direct engine holds at most %d bins; use --engine histogram (or auto)", n, uint64(kernels.MaxBins))
		}
		return fmt.Errorf("--bins %d: the direct engine holds at most %d bins (32-bit bin indices), and %s cannot run on the histogram engine: %s", n, uint64(kernels.MaxBins), s.Process.Name, why)
	}
	if s.engine == EngineHistogram && n > maxHistogramBins {
		return fmt.Errorf("--bins %d: the histogram engine holds at most 2^50 bins (counts exact in float64 binomials)", n)
	}
	return nil
}

// ResolvedEngine is the engine RunTrial uses (auto resolved).
func (s *Spec) ResolvedEngine() Engine { return s.engine }

// EngineReason says why auto chose the engine, in words (empty when the
// user named it).
func (s *Spec) EngineReason() string { return s.engineWhy }

// ParamsMap returns the parameters the process uses, by name, for output.
// Unit weights are left out, being the default everywhere.
func (s *Spec) ParamsMap() map[string]any {
	m := map[string]any{}
	if s.Process.Fixed.D != 0 {
		m["d"] = s.Process.Fixed.D
	}
	for _, name := range s.Process.Params {
		switch {
		case name == "ages" && s.Params.Delay != kernels.DelayEmpirical,
			name == "replay" && s.Params.Delay != kernels.DelayReplay,
			name == "beta" && s.Process.Kind == KindGraphical && s.Params.Strategy != "one-plus-beta",
			(name == "stale" || name == "haar-scale" || name == "haar-route") && s.Params.Strategy != "haar",
			name == "haar-route" && s.Params.HaarRoute == "set",
			name == "stale" && s.Params.Stale <= 1,
			name == "d" && s.Process.Kind == KindHypergraph && s.Params.ProbeAll,
			name == "refresh" && s.Params.Refresh == 0,
			name == "graph-clean" && s.Params.GraphClean == "refuse",
			(name == "sample-size" || name == "sample-rule") && s.Params.Variant != "sampling",
			name == "held" && s.Params.Variant == "oracle",
			(name == "dims" || name == "populated" || name == "vector-gap") && s.Params.Dims <= 1:
			continue // not used, or the default that changes nothing
		}
		m[name] = paramDef(name).value(&s.Params)
	}
	if s.Process.Weighted && s.Params.Weights.Kind != WeightsUnit {
		m["weights"] = s.Params.Weights.String()
	}
	return m
}

// ParamsText is ParamsMap as "d=2 beta=0.5", in catalogue order.
func (s *Spec) ParamsText() string {
	m := s.ParamsMap()
	var parts []string
	for _, def := range paramDefs {
		if v, ok := m[def.Name]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", def.Name, v))
		}
	}
	return strings.Join(parts, " ")
}

// loadBytes is the size of one bin's load in the direct engine: 32-bit
// counters while no bin can reach 2^32 (fewer balls than that in all), else
// 64-bit; real-valued loads for random weights.
func (s *Spec) loadBytes() uint64 {
	if !s.Params.Weights.Unit() || s.Balls > math.MaxUint32 {
		return 8
	}
	return 4
}

// binsCulprit names what sets the bins: --bins, or the graph or hyperedge
// file that fixes them.
func (s *Spec) binsCulprit() (culprit, hint string) {
	switch {
	case s.graph != nil:
		return "--graph " + s.Params.GraphSpec, "use a smaller --graph"
	case s.hyper != nil && strings.HasPrefix(s.Params.HyperSpec, "file:"):
		return "--hyperedges " + s.Params.HyperSpec, "use fewer bins in --hyperedges"
	}
	return "--bins " + FormatCount(s.Bins), "lower --bins"
}

// TrialMemory estimates the bytes one running trial holds (TrialFootprint).
func (s *Spec) TrialMemory() uint64 { return s.TrialFootprint().Bytes }

// TrialFootprint estimates the bytes one running trial holds: the load
// array and the scratch of a snapshot (a count per load level, at most
// maxCountLevels of them, or the weight buffer), the process's own state,
// the checkpoints it records and the loads it returns. A snapshot whose
// loads span more levels than that sorts a copy instead, which only
// happens when there are few bins.
func (s *Spec) TrialFootprint() Footprint {
	var f Footprint
	bins, binsHint := s.binsCulprit()
	if s.KeepLoads {
		f.Add("--loads", "leave out --loads", units.Mul(s.Bins, 8))
	}
	if s.Checkpoints > 0 {
		// A checkpoint kept in the result and its target ball count.
		f.Add("--checkpoints "+FormatCount(s.Checkpoints), "lower --checkpoints", units.Mul(s.Checkpoints, uint64(unsafe.Sizeof(Checkpoint{}))+8))
	}
	if s.engine == EngineHistogram {
		f.Add("--balls "+FormatCount(s.Balls), "lower --balls", histogramMemory(s))
		return f
	}
	lb := s.loadBytes()
	scratch := uint64(maxCountLevels * 8)
	weighted := !s.Params.Weights.Unit()
	if weighted {
		scratch = weightBuffer * 8
	}
	f.Add(bins, binsHint, units.Add(units.Mul(s.Bins, lb), scratch))
	switch kind, _ := s.effective(); kind {
	case KindTauDelay:
		perBin, perTau := kernels.DelayMemory(s.Params.Delay, int(lb), weighted)
		if s.Params.Delay == kernels.DelayReplay {
			perBin, perTau = kernels.ReplayMemory() // the ages themselves are held by the spec
		}
		f.Add(bins, binsHint, units.Mul(s.Bins, uint64(perBin)))
		tau, hint := "--tau "+FormatCount(s.Params.Tau), "lower --tau (or --balls)"
		switch s.Params.Delay {
		case kernels.DelayEmpirical:
			tau, hint = fmt.Sprintf("--ages %s (τ = %d)", s.Params.AgesSource, s.Params.Tau), "use ages below a smaller τ in --ages (or lower --balls)"
		case kernels.DelayReplay:
			tau, hint = fmt.Sprintf("--replay %s (τ = %d)", s.Params.ReplaySource, s.Params.Tau), "replay a sequence of smaller ages (or fewer balls)"
		}
		f.Add(tau, hint, units.Mul(kernels.DelayWindow(s.Params.Tau, s.Balls), uint64(perTau)))
	case KindBBatch:
		f.Add(bins, binsHint, kernels.BatchMemory(s.Bins, s.Params.Batch, int(lb), weighted))
	}
	if s.Params.Dims > 1 {
		f.Add(fmt.Sprintf("--dims %d", s.Params.Dims), "lower --dims or --bins", s.ideaMemory())
	} else {
		f.Add(bins, binsHint, s.ideaMemory())
	}
	s.structureFootprint(&f, lb)
	return f
}

// HasHistogram reports whether the spec's results carry a load histogram:
// integer loads (unit or constant weights) of scalar balls.
func (s *Spec) HasHistogram() bool { return s.Params.Weights.Unit() && s.Params.Dims <= 1 }
