// Package process is balloc's catalogue of allocation processes: one file per
// process, holding everything balloc knows about it — its catalogue entry,
// its parameters (typed, each validating itself), its memory estimate, and
// the capabilities it has: the direct engine's stepper, the histogram
// engine's level stepper, its fluid limit, its rule for balloc concurrent.
// The engines (core) drive any process through these method sets; what a
// process lacks is a fact of its file (Capabilities), never a panic.
//
// docs/ARCHITECTURE.md walks through adding a process, with the (1+β)
// process's file as the worked example.
package process

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Entry is one process of the catalogue.
type Entry struct {
	Name    string
	Summary string // one line, for help and the README
	Source  string // where the rule is defined
	// Order places the entry in the catalogue (help, info, README order).
	Order int
	// Weighted: the process accepts --weights (ball weights).
	Weighted bool
	// Reports are the extra blocks its results carry beyond the common
	// measures (result.Extra): the bins it sampled (its steppers are
	// Samplers), its probes (Probers), IDEA's retries and estimates, rbb's
	// rounds. Output writes a block's CSV columns when a process of the run
	// reports it, so the kinds are declared here, before any trial.
	Reports []*result.Kind
	// Fixed are the parameter values an alias fixes (two-choice: d = 2),
	// shown in its results.
	Fixed map[string]any
	// New returns the process with every parameter at its default.
	New func() Process
}

// Process is a process of the catalogue with its parameters: made by its
// entry's New, set through Params, checked by Check before any trial.
type Process interface {
	Entry() *Entry
	// Params are the process's parameters, bound to this value, in flag
	// order. Weights are not among them: the spec holds them for every
	// weighted process.
	Params() []*Param
	// Check validates the parameters against each other and the common
	// settings, and prepares what every trial shares (tables, structures).
	// A process on a structure sets su.Bins from it.
	Check(su *Setup) error
}

// Setup is what Check sees of the common settings.
type Setup struct {
	Bins    uint64 // 0 when --bins was not given
	Balls   uint64 // 0 until the bins are known when given per bin
	Seed    uint64
	Weights Weights
	Given   map[string]bool // the parameters the user set (flag names)
}

// Trial is what a stepper gets of a trial: its identity and its streams.
// Choices and Noise are the trial's choice and noise streams
// (kernels.LaneChoices, kernels.LaneNoise), shared with the engine.
type Trial struct {
	Seed, Index    uint64
	Bins, Balls    uint64
	Weights        Weights
	Choices, Noise *kernels.PCG32
	// LevelBatch > 0 forces the level batches of hist.Advance to this size
	// (core.Common.LevelBatch, for tests).
	LevelBatch uint64
	// Initial is W0, the balls of --initial (initial.go): ball t+1 sees
	// W0 + t balls in the bins.
	Initial uint64
}

// Chunk is the most balls one Step places: a few milliseconds, between
// progress reports.
const Chunk = 1 << 22

// Stepper runs a process on the direct engine's integer loads (unit or
// constant weights): Step places up to c balls, ball t+1 first (t placed
// before), and returns how many it placed and the new maximum load. One
// interface call per chunk of balls, never per ball: Step calls the
// process's kernel loop.
type Stepper[L kernels.Load] interface {
	Step(loads []L, t, c uint64, maxLoad L) (uint64, L)
}

// Direct is a process the direct engine runs on integer loads. The loads
// are 32-bit while fewer than 2^32 balls are thrown, else 64-bit.
type Direct interface {
	Direct32(tr *Trial) Stepper[uint32]
	Direct64(tr *Trial) Stepper[uint64]
}

// RealStepper runs a process on real-valued loads: Step places one ball of
// each weight in w and returns the new maximum load.
type RealStepper interface {
	Step(loads, w []float64, maxLoad float64) float64
}

// DirectWeighted is a process the direct engine runs with random weights.
type DirectWeighted interface {
	DirectReal(tr *Trial) RealStepper
}

// LevelStepper runs a symmetric process on the histogram engine's counts of
// bins per load: Step places up to want balls (the rest of the stretch to
// the next checkpoint), at most Chunk unless its sampler places a whole
// stretch at once, and returns how many it placed.
type LevelStepper interface {
	Step(lv *kernels.Levels, t, want uint64) uint64
}

// Histogram is a symmetric process — the next bin depends on loads only,
// never on names — which the histogram engine runs exactly. Its costs feed
// --engine auto's choice (core/choose.go): the histogram engine's seconds
// for a trial, and the direct engine's ns per ball as a factor of the
// two-choice loop's at the same n.
type Histogram interface {
	Levels(tr *Trial) LevelStepper
	HistogramSeconds(bins, balls, checkpoints uint64) float64
	DirectFactor() float64
}

// Starter is a stepper that keeps state beside the loads (a batch's frozen
// loads, quantile's level counts, group sums), made for empty bins: the
// direct engine calls Start once with the loads of --initial (initial.go)
// before the first Step when they are not all zero.
type Starter[L kernels.Load] interface{ Start(loads []L) }

// RealStarter is a Starter on real-valued loads (random weights).
type RealStarter interface{ Start(loads []float64) }

// InitialWhy is a process whose direct loop cannot yet start from a given
// load vector (its state assumes empty bins): a non-empty reason says why.
type InitialWhy interface{ InitialWhy() string }

// PositionalTies is a process whose direct loop breaks ties by position,
// which gives the law of uniformly random ties only when the bins are
// exchangeable — from a start where every bin holds the same load. From
// any other --initial vector it runs on the histogram engine (exact on
// levels, where positions carry no names) or is refused; the method says
// why in words.
type PositionalTies interface{ PositionalTies() string }

// Settler is a stepper that holds balls it has not yet written into the
// loads (b-batch on the histogram): the engine settles it at checkpoints.
type Settler interface{ Settle(lv *kernels.Levels) }

// Sampler is a stepper (direct or histogram) that counts the bins it
// sampled: the engines report the count as Result.Samples.
type Sampler interface{ Samples() uint64 }

// BatchEnds is a stepper that also measures the gap where a batch ends
// (b-batch): ends batches ended, and the largest gap at an end, in balls.
type BatchEnds interface {
	BatchEnds(bins int) (ends uint64, gap float64)
}

// Prober is a stepper that counts the load reads its balls took (threshold,
// adaptive, bounded-hashing): in total, and the most one ball took.
type Prober interface{ Probes() (total, most uint64) }

// Fluid is a process with a fluid limit (mean-field ODE) for unit balls:
// the predicted fraction of bins at each load after balls balls in bins
// bins (core/theory).
type Fluid interface {
	Fluid(bins, balls uint64) (theory.Profile, error)
}

// Footprinter is a process that holds state beyond the engine's load
// array: Footprint adds its bytes per trial to f, each with the flag that
// drives it.
type Footprinter interface {
	Footprint(f *units.Footprint, m Mem)
}

// Mem is what a footprint estimate sees of the trial.
type Mem struct {
	Bins, Balls uint64
	LoadBytes   uint64 // one bin's load in the direct engine
	Weighted    bool   // random weights: real-valued loads
	// BinsCulprit names what sets the bins (--bins, or a --graph), and
	// BinsHint how to lower them.
	BinsCulprit, BinsHint string
}

// BinsSource is a process whose structure fixes the bins: it names the
// flag, for memory refusals.
type BinsSource interface {
	BinsCulprit() (culprit, hint string)
}

// OnGraph is a process that runs on a graph it builds in Check, its bins
// the vertices (graphical): output describes the graph.
type OnGraph interface{ Graph() *graph.Graph }

// OnHypergraph is a process that runs on a hypergraph it builds in Check
// (hypergraph): its structure, and how a ball reads it — the bins probed
// per hyperedge and the balls between fresh random hypergraphs (0: never),
// which balloc graph-stats measures.
type OnHypergraph interface {
	Structure() *graph.Hypergraph
	Probing() (d int, refresh uint64)
}

// HaarPlanned is a process that places by a Haar-drift plan it builds in
// Check (graphical --strategy haar): the plan, nil when its parameters use
// none, and how it was asked for and built, for output.
type HaarPlanned interface {
	Haar() *haar.Plan
	HaarSetting() HaarSetting
}

// HaarSetting is how a Haar-drift plan was asked for and built.
type HaarSetting struct {
	Scale string // --haar-scale
	Asked string // --haar-route as given: set, graph or auto
	Route string // the route the plan uses: Asked, or auto's choice
}

// HistogramWhy is a symmetric process whose parameters can keep it off the
// histogram engine: a non-empty reason says why.
type HistogramWhy interface{ HistogramWhy() string }

// Dimensional is a process whose balls may be vectors (--dims).
type Dimensional interface{ Dimensions() int }

// Lookup finds a process by name.
func Lookup(name string) (*Entry, error) {
	for _, e := range Entries() {
		if e.Name == name {
			return e, nil
		}
	}
	var names []string
	for _, e := range registry {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("--process %q is not a process balloc knows (known: %s)", name, strings.Join(names, ", "))
}

var registry []*Entry

// Register adds a process to the catalogue; each process file calls it from
// init. It panics on a duplicate name or order, or on parameters that
// disagree with another process's parameter of the same name.
func Register(e *Entry) {
	for _, o := range registry {
		if o.Name == e.Name || o.Order == e.Order {
			panic("process: " + e.Name + " registered twice, or at the order of " + o.Name)
		}
	}
	registry = append(registry, e)
	slices.SortFunc(registry, func(a, b *Entry) int { return a.Order - b.Order })
	for _, p := range e.New().Params() {
		addFlag(e, p)
	}
}

// NameWidth is the longest process name, in characters: the width of the
// name column where help and info list the catalogue.
func NameWidth() int {
	w := 0
	for _, e := range registry {
		w = max(w, utf8.RuneCountInString(e.Name))
	}
	return w
}

// Entries returns the catalogue in its order.
func Entries() []*Entry { return slices.Clone(registry) }

// Params returns the names of the parameters e takes, in flag order,
// --weights aside (Weighted).
func (e *Entry) Params() []string {
	var names []string
	for _, p := range e.New().Params() {
		names = append(names, p.Name)
	}
	return names
}

// Takes reports whether e accepts the parameter (flag name without dashes).
func (e *Entry) Takes(param string) bool {
	switch param {
	case "weights":
		return e.Weighted
	case "initial": // every process starts from --initial (initial.go)
		return true
	}
	return slices.Contains(e.Params(), param)
}

// TakesText lists e's parameters as flags, for errors.
func (e *Entry) TakesText() string {
	var names []string
	for _, q := range e.Params() {
		names = append(names, "--"+q)
	}
	if e.Weighted {
		names = append(names, "--weights")
	}
	if len(names) == 0 {
		return "it takes no parameters"
	}
	return "it takes " + strings.Join(names, ", ")
}

// Symmetric reports whether the histogram engine can run e.
func (e *Entry) Symmetric() bool {
	_, ok := e.New().(Histogram)
	return ok
}

// HasFluid reports whether e has a fluid limit.
func (e *Entry) HasFluid() bool {
	_, ok := e.New().(Fluid)
	return ok
}

// Capabilities says, in one line, what balloc can do with e: its engines,
// its theory, and whether balloc concurrent runs it, e.g. "engines: direct,
// histogram · theory: fluid · concurrent".
func (e *Entry) Capabilities() string {
	p := e.New()
	engines := []string{"direct"}
	if _, ok := p.(Histogram); ok {
		engines = append(engines, "histogram")
	}
	text := "engines: " + strings.Join(engines, ", ")
	if e.Weighted {
		text += " · weights"
	}
	if _, ok := p.(Fluid); ok {
		text += " · theory: fluid"
	}
	if _, ok := p.(Concurrent); ok {
		text += " · concurrent"
	}
	if pl, ok := p.(Placer); ok && placesWhenBallsLeave(pl) {
		text += " · balls leave" // --arrival-rate, --delete-prob (ballsleave.go)
	} else if _, ok := p.(DirectDeleter); ok {
		text += " · deletions (direct)" // --delete-prob, --phases (ballsleave.go)
	} else if _, ok := p.(Replicated); ok {
		text += " · the supermarket model only (its own event loop)" // ballsleave.go
	} else if _, ok := p.(Ringed); ok {
		text += " · balls leave in the supermarket model (its own event loop)" // ballsleave.go
	}
	return text
}

// placesWhenBallsLeave: a Placer whose placement at its defaults is not
// refused (threshold's type is adaptive's, but its m/n has no meaning when
// balls leave).
func placesWhenBallsLeave(pl Placer) bool {
	_, why := pl.Placement()
	return why == ""
}

// Concurrent is a process balloc concurrent runs: its decision rule as one
// of the shapes the lock-free loop knows (concurrency/allocator.go), read
// once per run.
type Concurrent interface{ Concurrent() Rule }

// Shape is a decision balloc concurrent knows.
type Shape int

const (
	// ShapeLeast: the least loaded of D uniform samples (D = 1: one-choice).
	ShapeLeast Shape = iota + 1
	// ShapeCoin: with probability Beta the less loaded of two uniform
	// samples, else one uniform sample.
	ShapeCoin
	// ShapeThinning: the first uniform sample if its load < t/n + Theta
	// (ball t+1), else a second uniform sample.
	ShapeThinning
	// ShapeMyopic: two uniform samples; loads within G: a fair coin, else
	// the lighter.
	ShapeMyopic
)

// Rule is a process's decision for balloc concurrent.
type Rule struct {
	Shape Shape
	D     int
	Beta  float64
	Theta float64
	G     float64
	// Params: the parameters the rule reads, balloc concurrent's flags;
	// Models: the sequential runs it is compared with, nil for none
	// (concurrent.go).
	Params []RuleParam
	Models *Models
}

// Vector is a process the vector engine (core/engine/vector.go) runs: IDEA's balls
// with estimated averages, and balls of --dims D > 1.
type Vector interface {
	// Vector says how, and whether: ok is false when the process runs on
	// the other engines (d-choice of scalar balls).
	Vector(bins uint64) (v VectorRun, ok bool)
}

// VectorRun is the vector engine's view of a process.
type VectorRun struct {
	Idea   bool               // IDEA's rule, with Config; else d-choice of D samples
	Config kernels.IdeaConfig // idea
	Shape  kernels.VecShape   // the balls' dimensions
	D      int                // d-choice: samples per ball
}

// Content is a process whose parameters hold data beyond their values (a
// file's ages): for the spec's hash, so that a changed file is a different
// spec, Content returns the text that stands for a shown parameter's value
// (by name) and the data as text parts.
type Content interface {
	Content() (values map[string]string, parts []string)
}
