package core

import (
	"fmt"
	"math"
	"strings"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Dynamic holds the settings of the models where balls leave,
// one convention for balloc run and sweep files (keys arrival_rate, time,
// events, warmup, delete_prob, delete).
//
// The supermarket model (--arrival-rate λ, 0 < λ < 1): n queues, arrivals at
// rate λn placed by the process, each non-empty queue serving at rate 1,
// simulated exactly at the events of its uniformization (kernels/dynamic.go).
// A trial starts empty, or from --initial (core/supermarket_initial.go:
// uniform:L, spike:L, file:PATH, and fixed-point, i.i.d. loads from the
// process's fixed point). Its length is --time T (continuous time) or
// --events E, and the two are tied by the events' rate n(1+λ): --time T
// runs E = round(n(1+λ)·T) events, a fixed number (not a Poisson one), so T
// is the expected time of the last event; the time actually reached is
// Gamma(E, n(1+λ)), within a relative 1/√E of T. --warmup W (time units, 0
// by default) leaves the first round(n(1+λ)·W) events out of the time
// averages. --balls is not a supermarket setting. --update-period T makes
// the arrivals decide on loads up to T old (the periodic update board),
// --update-delay T on the loads exactly T old (continuous update), and
// --update-individual T on entries each refreshed at rate 1/T (individual
// updates). The delay's T is in real time: the events carry time stamps
// (kernels.DelayRecord), while the run's length stays E events.
//
// Deletions in the heavily loaded case (--delete-prob p, 0 ≤ p < 1): each
// step inserts a ball by the process with probability 1 − p, else removes
// one: --delete ball (the default) a ball chosen uniformly among those
// present (its bin with probability ∝ load), --delete bin one ball of a
// uniformly random non-empty bin. A deletion step with no ball present
// removes nothing. --balls M counts steps, insertions and deletions
// together, so --checkpoints are evenly spaced steps; the gap is max load −
// (balls present)/n. At p = 0 every step inserts and the run is the static
// process, draw for draw. A process that reads the average t/n
// (two-thinning, k-thinning) reads it as (balls present)/n in both models:
// its steppers get t = the balls present, which is the static t while no
// ball has left. --phases replaces the coin by a fixed sequence of phases
// (Phases below).
type Dynamic struct {
	ArrivalRate float64 // λ; > 0 makes the run the supermarket model
	Time        float64 // --time T; 0 when --events was given
	Events      uint64  // --events E; set from Time by NewSpec otherwise
	Warmup      float64 // --warmup W, in time units
	// UpdatePeriod > 0: arrivals decide on a board of the loads refreshed
	// every T time units (--update-period T; Mitzenmacher's periodic update
	// model), every round(n(1+λ)·T) events in the fixed-events convention;
	// the board starts as the start's loads. The direct engine only: on level
	// counts the state would be the joint law of (board, real) loads.
	UpdatePeriod float64
	// UpdateDelay > 0: the continuous update model (--update-delay T): an
	// arrival at time t decides on the loads as they were at time t − T,
	// the events' times drawn as Exp(n(1+λ)) gaps (kernels.DelayRecord).
	// UpdateIndividual > 0: individual updates (--update-individual T):
	// each bin's board entry is refreshed at its own Poisson times of rate
	// 1/T, mean T apart (kernels.Refresher). Mitzenmacher's two other
	// models; like the board, the direct engine only, and at most one of
	// the three.
	UpdateDelay, UpdateIndividual float64
	// DeleteProb > 0, or Delete set, makes the run the deletions model.
	DeleteProb float64
	Delete     string // ball or bin; "" for ball
	// Phases (--phases +a,-b,+c): the deletions model as a fixed sequence
	// of phases instead of a coin — a insertions by the process, then b
	// deletions by --delete, then c insertions, … (for
	// adversarial-sequence studies). Each entry is nonzero, its sign the
	// phase's kind; --balls is their total steps (left out, it is set so).
	// Every phase's end is a checkpoint, beside --checkpoints.
	Phases []int64
}

// ParsePhases reads --phases: a comma-separated list of signed counts,
// each + (insertions) or − (deletions) and nonzero ("+1e6,-5e5,+1e6").
func ParsePhases(v string) ([]int64, error) {
	var out []int64
	total := uint64(0)
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		sign := int64(1)
		switch {
		case strings.HasPrefix(part, "+"):
			part = part[1:]
		case strings.HasPrefix(part, "-"), strings.HasPrefix(part, "−"):
			sign = -1
			part = strings.TrimPrefix(strings.TrimPrefix(part, "-"), "−")
		default:
			return nil, fmt.Errorf("want signed counts, +a for a insertions and -b for b deletions (e.g. +1e6,-5e5,+1e6); %q has no sign", part)
		}
		c, err := units.ParseCount(part)
		if err != nil || c == 0 || c > maxEvents {
			return nil, fmt.Errorf("want each phase a count from 1 to 2^62 with its sign (e.g. +1e6,-5e5); %q is not", part)
		}
		if total += c; total > maxEvents {
			return nil, fmt.Errorf("want at most 2^62 steps in all")
		}
		out = append(out, sign*int64(c))
	}
	return out, nil
}

// PhasesString is the canonical text of phases: "+1000000,-500000".
func PhasesString(ph []int64) string {
	parts := make([]string, len(ph))
	for i, p := range ph {
		parts[i] = fmt.Sprintf("%+d", p)
	}
	return strings.Join(parts, ",")
}

// PhaseSteps is the phases' total steps.
func PhaseSteps(ph []int64) uint64 {
	total := uint64(0)
	for _, p := range ph {
		total += uint64(max(p, -p))
	}
	return total
}

// Supermarket reports whether the run is the supermarket model.
func (d Dynamic) Supermarket() bool { return d.ArrivalRate > 0 }

// Deletions reports whether the run is the deletions model.
func (d Dynamic) Deletions() bool { return d.DeleteProb > 0 || d.Delete != "" || len(d.Phases) > 0 }

// On reports whether balls leave in this run.
func (d Dynamic) On() bool { return d.Supermarket() || d.Deletions() }

// EventRate is the supermarket's events per unit time, n(1+λ).
func (d Dynamic) EventRate(bins uint64) float64 { return float64(bins) * (1 + d.ArrivalRate) }

// WarmupEvents is the events --warmup leaves out of the time averages.
func (d Dynamic) WarmupEvents(bins uint64) uint64 {
	return uint64(math.Round(d.Warmup * d.EventRate(bins)))
}

// BoardEvents is the events between refreshes of the periodic board (0:
// no board).
func (d Dynamic) BoardEvents(bins uint64) uint64 {
	return uint64(math.Round(d.UpdatePeriod * d.EventRate(bins)))
}

// Stale reports whether the arrivals decide on stale loads (one of
// --update-period, --update-delay, --update-individual).
func (d Dynamic) Stale() bool {
	return d.UpdatePeriod != 0 || d.UpdateDelay != 0 || d.UpdateIndividual != 0
}

// staleFlags are the stale-information settings with their flags.
func (d Dynamic) staleFlags() []struct {
	flag string
	v    float64
} {
	return []struct {
		flag string
		v    float64
	}{{"--update-period", d.UpdatePeriod}, {"--update-delay", d.UpdateDelay}, {"--update-individual", d.UpdateIndividual}}
}

// maxRefreshes bounds the expected refreshes per event of individual
// updates, 1/((1+λ)T): below T = 1e-4/(1+λ) the board is fresh to within a
// refresh per 10^4 events of each bin, and the run costs 10^4 draws an event.
const maxRefreshes = 1e4

// DeleteMode is --delete with its default.
func (d Dynamic) DeleteMode() string {
	if d.Delete == "" {
		return "ball"
	}
	return d.Delete
}

// maxEvents bounds a dynamic run's events (and event indices).
const maxEvents = 1 << 62

// The rules for the dynamic settings, shared by flags and sweep files: each
// says why a value is refused ("" when it is not).

// ArrivalRateRule says why an arrival rate is refused.
func ArrivalRateRule(l float64) string {
	if !(l > 0 && l < 1) {
		return "want an arrival rate per bin λ with 0 < λ < 1 (the queues are stable only then)"
	}
	return ""
}

// TimeRule says why a --time or --warmup is refused.
func TimeRule(t float64) string {
	if !(t >= 0 && t <= 1e15) {
		return "want a time in [0, 1e15]"
	}
	return ""
}

// DeleteProbRule says why a deletion probability is refused.
func DeleteProbRule(p float64) string {
	if !(p >= 0 && p < 1) {
		return "want a probability with 0 ≤ p < 1"
	}
	return ""
}

// DeleteRule says why a --delete mode is refused.
func DeleteRule(m string) string {
	if m != "ball" && m != "bin" {
		return "want ball (a uniformly random ball) or bin (a uniformly random non-empty bin)"
	}
	return ""
}

// checkDynamic validates the dynamic settings against the process and the
// common settings, and sets Balls (the supermarket's events) and Events.
func (s *Spec) checkDynamic() error {
	d := &s.Dynamic
	if !d.Supermarket() && (d.Time != 0 || d.Events != 0 || d.Warmup != 0 || d.Stale()) {
		for _, c := range []struct {
			flag string
			set  bool
		}{{"--time", d.Time != 0}, {"--events", d.Events != 0}, {"--warmup", d.Warmup != 0}, {"--update-period", d.UpdatePeriod != 0},
			{"--update-delay", d.UpdateDelay != 0}, {"--update-individual", d.UpdateIndividual != 0}} {
			if c.set {
				what := "it sets the length of a supermarket run"
				if strings.HasPrefix(c.flag, "--update-") {
					what = "stale loads are a setting of the supermarket model"
				}
				return fmt.Errorf("%s: %s; add --arrival-rate λ", c.flag, what)
			}
		}
	}
	_, replicated := s.Proc.(process.Replicated)
	if replicated && !d.Supermarket() {
		return fmt.Errorf("%s runs the supermarket model only (a job occupies d queues until one copy is served): give --arrival-rate λ and --time T", s.Process.Name)
	}
	_, ringed := s.Proc.(process.Ringed)
	if ringed && d.Deletions() && !d.Supermarket() {
		flag := "--delete-prob"
		if len(d.Phases) > 0 {
			flag = "--phases"
		}
		return fmt.Errorf("%s: %s's balls leave in the supermarket model only (--arrival-rate λ --time T); the deletions model's removals are not built for its ring", flag, s.Process.Name)
	}
	if !d.On() {
		return nil
	}
	flag := "--arrival-rate"
	switch {
	case len(d.Phases) > 0:
		flag = "--phases"
	case d.Deletions():
		flag = "--delete-prob"
	}
	if d.Supermarket() && d.Deletions() {
		if flag == "--arrival-rate" {
			flag = "--delete"
		}
		return fmt.Errorf("%s: the supermarket model (--arrival-rate) has its own departures; give one of them", flag)
	}
	pl, ok := s.Proc.(process.Placer)
	var place kernels.Placement
	switch dd, isDD := s.Proc.(process.DirectDeleter); {
	case replicated:
		for _, c := range d.staleFlags() {
			if c.v != 0 {
				return fmt.Errorf("%s: %s places copies on uniform servers and reads no loads; stale loads do not apply", c.flag, s.Process.Name)
			}
		}
	case ringed:
		for _, c := range d.staleFlags() {
			if c.v != 0 {
				return fmt.Errorf("%s: %s's walk reads the loads of the bins it passes; stale loads for it are not built", c.flag, s.Process.Name)
			}
		}
	case ok:
		var why string
		if place, why = pl.Placement(); why != "" {
			return fmt.Errorf("%s: %s", flag, why)
		}
	case isDD && d.Deletions() && !d.Supermarket():
		if why := dd.DeletionsWhy(); why != "" {
			return fmt.Errorf("%s: %s", flag, why)
		}
		if s.Engine == EngineHistogram {
			return fmt.Errorf("--engine histogram: %s's deletions run on the direct engine only (on level counts every removed ball would have to be tested against the cached bins); use --engine direct or auto", s.Process.Name)
		}
	case isDD:
		return fmt.Errorf("%s: %s has no supermarket reading yet (its deletions, --delete-prob and --phases, run on the direct engine)", flag, s.Process.Name)
	default:
		placers, deleters := process.BallsLeaveNames()
		return fmt.Errorf("%s: %s has no dynamic reading (balls leave only under %s; the deletions of %s on the direct engine)", flag, s.Process.Name, process.AndList(placers), process.AndList(deleters))
	}
	if place.Idle && d.Deletions() {
		return fmt.Errorf("%s: %s's idle servers register when a departure empties them; the deletions model's removals do not register them (balls leave %s in the supermarket model, --arrival-rate)", flag, s.Process.Name, s.Process.Name)
	}
	if place.Heavy > 0 || len(place.Thetas) > 0 || place.Idle {
		for _, c := range d.staleFlags() {
			if c.v != 0 {
				return fmt.Errorf("%s: stale loads are read by the least of D samples; %s on stale loads is not built", c.flag, s.Process.Name)
			}
		}
	}
	if len(place.Thetas) > 0 && !kernels.ThinningFits(s.Bins, place.Thetas) {
		return fmt.Errorf("%s: with balls leaving the thresholds are compared exactly in integers, which wants |θ|·n ≤ 2^61 (θ = %v, n = %d)", flag, place.Thetas, s.Bins)
	}
	if s.Weights.Kind != process.WeightsUnit {
		return fmt.Errorf("--weights %s: balls that leave are unit balls", s.Weights)
	}
	if d.Deletions() {
		if why := DeleteProbRule(d.DeleteProb); why != "" {
			return fmt.Errorf("--delete-prob %v: %s", d.DeleteProb, why)
		}
		if why := DeleteRule(d.DeleteMode()); why != "" {
			return fmt.Errorf("--delete %q: %s", d.Delete, why)
		}
		if len(d.Phases) > 0 {
			if d.DeleteProb != 0 {
				return fmt.Errorf("--phases: the phases fix which steps delete; give --phases or --delete-prob, not both")
			}
			steps := PhaseSteps(d.Phases)
			switch {
			case s.Balls == 0:
				s.Balls = steps
			case s.Balls != steps:
				return fmt.Errorf("--balls %d: with --phases the run is the phases' %d steps; leave --balls out or give that", s.Balls, steps)
			}
		}
		return nil
	}
	if why := ArrivalRateRule(d.ArrivalRate); why != "" {
		return fmt.Errorf("--arrival-rate %v: %s", d.ArrivalRate, why)
	}
	if s.Balls != 0 {
		return fmt.Errorf("--balls: a supermarket run is as long as --time T or --events E, not a number of balls")
	}
	rate := d.EventRate(s.Bins)
	switch {
	case d.Time != 0 && d.Events != 0:
		return fmt.Errorf("--events: give --time or --events, not both")
	case d.Time == 0 && d.Events == 0:
		return fmt.Errorf("--time is required with --arrival-rate (or --events E)")
	case d.Time != 0:
		if why := TimeRule(d.Time); why != "" || d.Time*rate >= maxEvents {
			return fmt.Errorf("--time %v: want 0 < T with T·n(1+λ) < 2^62 events", d.Time)
		}
		d.Events = uint64(math.Round(d.Time * rate))
		if d.Events == 0 {
			return fmt.Errorf("--time %v: shorter than one event (%g events per unit time)", d.Time, rate)
		}
	default:
		if d.Events > maxEvents {
			return fmt.Errorf("--events %d: want at most 2^62", d.Events)
		}
	}
	if why := TimeRule(d.Warmup); why != "" {
		return fmt.Errorf("--warmup %v: %s", d.Warmup, why)
	}
	if w := d.WarmupEvents(s.Bins); w >= d.Events {
		return fmt.Errorf("--warmup %v: want less than the run (%g time units, %d events)", d.Warmup, float64(d.Events)/rate, d.Events)
	}
	if d.UpdatePeriod != 0 {
		if why := TimeRule(d.UpdatePeriod); why != "" {
			return fmt.Errorf("--update-period %v: %s", d.UpdatePeriod, why)
		}
		if d.BoardEvents(s.Bins) == 0 {
			return fmt.Errorf("--update-period %v: shorter than one event (%g events per unit time)", d.UpdatePeriod, rate)
		}
		if s.Engine == EngineHistogram {
			return fmt.Errorf("--update-period: the periodic board runs on the direct engine only (on level counts the state would be the joint law of board and real loads); use --engine direct or auto")
		}
	}
	if err := s.checkStale(); err != nil {
		return err
	}
	if s.Checkpoints > d.Events {
		return fmt.Errorf("--checkpoints %d: want at most the run's %d events", s.Checkpoints, d.Events)
	}
	s.Balls = d.Events
	return nil
}

// checkStale checks --update-delay and --update-individual (at most one
// stale model; the direct engine; the cost bound of individual updates).
func (s *Spec) checkStale() error {
	d := &s.Dynamic
	first := ""
	for _, c := range d.staleFlags() {
		if c.v == 0 {
			continue
		}
		if first != "" {
			return fmt.Errorf("%s: give one stale-information model (%s is given)", c.flag, first)
		}
		first = c.flag
		if why := TimeRule(c.v); why != "" {
			return fmt.Errorf("%s %v: %s", c.flag, c.v, why)
		}
		if s.Bins > kernels.MaxBins {
			return fmt.Errorf("%s: stale loads run on the direct engine, which holds at most %d bins", c.flag, uint64(kernels.MaxBins))
		}
		if c.flag != "--update-period" && s.Engine == EngineHistogram {
			return fmt.Errorf("%s: stale loads run on the direct engine only (on level counts the state would be the joint law of seen and real loads); use --engine direct or auto", c.flag)
		}
	}
	if T := d.UpdateIndividual; T != 0 && 1/((1+d.ArrivalRate)*T) > maxRefreshes {
		return fmt.Errorf("--update-individual %v: want T ≥ %.3g (1/((1+λ)T) refreshes an event, at most %g; drop the flag for fresh loads)", T, 1/((1+d.ArrivalRate)*maxRefreshes), float64(maxRefreshes))
	}
	if d.UpdateDelay != 0 && s.Bins >= 1<<31 {
		return fmt.Errorf("--update-delay: at most 2^31 − 1 bins")
	}
	return nil
}

// dynamicEngine resolves the engine of a dynamic run: the histogram engine
// unless the user named direct — every Placer is symmetric, and on level
// counts an event touches O(1) memory instead of a random bin of n.
func (s *Spec) dynamicEngine() error {
	switch s.Engine {
	case EngineAuto, "":
		s.engine, s.engineWhy = EngineHistogram, "balls that leave run on level counts: an event touches O(1) memory, not a random bin"
		if s.Dynamic.UpdatePeriod != 0 {
			s.engine, s.engineWhy = EngineDirect, "the periodic board needs every bin's board and real load"
		}
		if s.Dynamic.UpdateDelay != 0 || s.Dynamic.UpdateIndividual != 0 {
			s.engine, s.engineWhy = EngineDirect, "stale loads need every bin's seen and real load"
		}
		if _, ok := s.Proc.(process.Placer); !ok {
			s.engine, s.engineWhy = EngineDirect, s.Process.Name+"'s deletions run on the direct engine"
		}
		if _, ok := s.Proc.(process.Replicated); ok {
			s.engine, s.engineWhy = EngineDirect, "a job's copies stand in FCFS queues: the state is every queue's order, not level counts"
			if s.Bins > kernels.MaxBins {
				return fmt.Errorf("--bins %d: %s runs on the direct engine, which holds at most %d bins", s.Bins, s.Process.Name, uint64(kernels.MaxBins))
			}
		}
		if _, ok := s.Proc.(process.Ringed); ok {
			s.engine, s.engineWhy = EngineDirect, "a walk on the ring reads bins by their ring order, not level counts"
			if s.Bins > kernels.MaxBins {
				return fmt.Errorf("--bins %d: %s runs on the direct engine, which holds at most %d bins", s.Bins, s.Process.Name, uint64(kernels.MaxBins))
			}
		}
	case EngineDirect:
		if s.Bins > kernels.MaxBins {
			return fmt.Errorf("--bins %d: the direct engine holds at most %d bins; use --engine histogram (or auto)", s.Bins, uint64(kernels.MaxBins))
		}
		s.engine = EngineDirect
	case EngineHistogram:
		if _, ok := s.Proc.(process.Replicated); ok {
			return fmt.Errorf("--engine histogram: %s's copies stand in FCFS queues, whose order level counts do not hold; use --engine direct or auto", s.Process.Name)
		}
		if _, ok := s.Proc.(process.Ringed); ok {
			return fmt.Errorf("--engine histogram: %s walks the ring in its order, which level counts do not hold; use --engine direct or auto", s.Process.Name)
		}
		s.engine = EngineHistogram
	default:
		return fmt.Errorf("--engine %q: want auto, direct or histogram", s.Engine)
	}
	return nil
}

// dynamicParams adds the dynamic settings to a spec's parameters, for
// output and the spec's hash (nothing when balls do not leave, so static
// specs hash as they always did).
func (s *Spec) dynamicParams(m map[string]any) map[string]any {
	d := s.Dynamic
	switch {
	case d.Supermarket():
		m["arrival_rate"] = d.ArrivalRate
		if d.Time != 0 {
			m["time"] = d.Time
		} else {
			m["events"] = d.Events
		}
		if d.Warmup != 0 {
			m["warmup"] = d.Warmup
		}
		if d.UpdatePeriod != 0 {
			m["update_period"] = d.UpdatePeriod
		}
		if d.UpdateDelay != 0 {
			m["update_delay"] = d.UpdateDelay
		}
		if d.UpdateIndividual != 0 {
			m["update_individual"] = d.UpdateIndividual
		}
	case len(d.Phases) > 0:
		m["phases"] = PhasesString(d.Phases)
		m["delete"] = d.DeleteMode()
	case d.Deletions():
		m["delete_prob"] = d.DeleteProb
		m["delete"] = d.DeleteMode()
	}
	return m
}

// SupermarketTheory is the mean field's fixed point of a supermarket spec,
// π_i for i = 1 … (core/theory/supermarket.go), and its model in words:
// JSQ(d)'s closed form, else the fixed point of the mean-field ODE from the
// process's level law.
func SupermarketTheory(s *Spec) ([]float64, string) {
	if _, ok := s.Proc.(process.Replicated); ok {
		return nil, "none for the copies per server; Redundancy-d's prediction is of its jobs (the redundancy block)"
	}
	if _, ok := s.Proc.(process.Ringed); ok {
		return nil, "none: no mean-field limit of the ring's walks is computed here"
	}
	pl, _ := s.Proc.(process.Placer).Placement()
	if len(pl.Thetas) > 0 && s.Dynamic.UpdatePeriod == 0 {
		return thinningTheory(s.Dynamic.ArrivalRate, pl.Thetas, pl.Retry)
	}
	if pl.Idle {
		// Join-Idle-Queue with one dispatcher (core/process/jiq.go): in the
		// large-system limit every arrival finds an idle server.
		return []float64{s.Dynamic.ArrivalRate}, "JIQ with one dispatcher, large-system limit (Lu et al. 2011; Stolyar 2015): every job finds an idle server, π_1 = λ, π_i = 0 for i ≥ 2 (mean queue λ, response time 1)"
	}
	law := theory.SupermarketLaw{D: pl.D, Beta: pl.Beta}
	if pl.Heavy > 0 {
		// δ as simulated: the ⌈δn⌉ heaviest of n bins.
		law.Delta = float64(pl.Heavy) / float64(s.Bins)
	}
	pi, err := theory.SupermarketFixedPoint(s.Dynamic.ArrivalRate, law)
	if err != nil {
		panic("core: " + err.Error()) // checkDynamic checked λ
	}
	if s.Dynamic.Stale() {
		fresh, model := s.withoutBoard()
		return fresh, "with fresh loads (no board: the cost of the board's staleness is the gap to it): " + model
	}
	switch {
	case pl.Heavy > 0:
		return pi, fmt.Sprintf("the mean-field ODE ds_i/dt = λ(f(s_{i−1}) − f(s_i)) − (s_i − s_{i+1}), f(x) = %g·x + %g·(%g·x + max(x − %g, 0)) (quantile's level law, δ = ⌈δn⌉/n), at rest: π_i = λ·f(π_{i−1})", 1-pl.Beta, pl.Beta, law.Delta, law.Delta)
	case pl.D == 1 || pl.Beta == 0:
		return theory.JSQFixedPoint(s.Dynamic.ArrivalRate, 1, len(pi)), "M/M/1 queues, π_i = λ^i"
	case pl.Beta == 1:
		exp := fmt.Sprintf("(%d^i − 1)/%d", pl.D, pl.D-1)
		if pl.D == 2 {
			exp = "2^i − 1"
		}
		return theory.JSQFixedPoint(s.Dynamic.ArrivalRate, pl.D, len(pi)), fmt.Sprintf("JSQ(%d), π_i = λ^(%s)", pl.D, exp)
	}
	return pi, fmt.Sprintf("the mean-field ODE ds_i/dt = λ(f(s_{i−1}) − f(s_i)) − (s_i − s_{i+1}), f(x) = %g·x + %g·x^%d, at rest: π_i = λ·f(π_{i−1})", 1-pl.Beta, pl.Beta, pl.D)
}

// withoutBoard is SupermarketTheory of s with fresh loads.
func (s *Spec) withoutBoard() ([]float64, string) {
	c := *s
	c.Dynamic.UpdatePeriod, c.Dynamic.UpdateDelay, c.Dynamic.UpdateIndividual = 0, 0, 0
	return SupermarketTheory(&c)
}

// thinningTheory is SupermarketTheory for thinning's thresholds (the ODE's
// rest point, its levels enough for the tail to fall below
// theory.FixedPointTail at rate λ a level, at most 2000).
func thinningTheory(lambda float64, thetas []float64, retry bool) ([]float64, string) {
	levels := int(min(max(math.Ceil(math.Log(theory.FixedPointTail)/math.Log(lambda))+8, 32), 2000))
	pi, err := theory.SupermarketThinningFixedPoint(lambda, thetas, retry, levels)
	if err != nil {
		return nil, "none: " + err.Error()
	}
	if retry {
		return pi, "the mean-field ODE ds_i/dt = λ(f_{i−1}(s) − f_i(s)) − (s_i − s_{i+1}), samples until one is below μ + 1 (μ = Σ s_i the balls present / n), f_i = (s_i − s_L)/(1 − s_L) for i < L = ⌈μ + 1⌉, integrated from empty to rest"
	}
	return pi, fmt.Sprintf("the mean-field ODE ds_i/dt = λ(f_{i−1}(s) − f_i(s)) − (s_i − s_{i+1}), sample j kept below μ + θ_j (θ = %v, μ = Σ s_i the balls present / n), integrated from empty to rest: π_i = λ·f_{i−1}(π)", thetas)
}
