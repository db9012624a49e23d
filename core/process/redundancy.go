package process

import (
	"fmt"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// Redundancy-d (Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky and
// Zbarsky, "Redundancy-d: the power of d choices for redundancy",
// Operations Research 65(4), 2017): each job that arrives is copied to d
// servers chosen uniformly at random; each server serves its queue first
// come, first served; as soon as the first copy of a job completes the job
// is done and its other copies are deleted, waiting or in service.
//
// A job is not a ball placed in one bin: it occupies d queues until one of
// its copies is served. So this process runs the supermarket model only
// (--arrival-rate λ, --time T), by its own event loop (kernels/redundancy.go,
// driven by core/engine/dynamic.go's supermarket run): a static run, the
// deletions model, the stale-load models, --initial and the histogram engine
// are refused (the state is the order of the copies in every queue, not a
// vector of loads or level counts).
//
// Choices the paper fixes or leaves, as simulated here:
//   - The paper's model: Poisson arrivals at rate λn, n servers of rate 1,
//     job sizes exponential with mean 1 and the copies' service times
//     independent (its "independent runtimes"), so a busy server completes
//     its head copy at rate 1 whatever it has served; stable for λ < 1.
//   - The d servers are distinct (drawn with replacement, a repeat drawn
//     again: a uniform d-subset), d ≤ n; d = 1 is random routing to M/M/1
//     queues, the one-choice supermarket run draw for draw.
//   - A server's load is the copies in its queue, so the common measures
//     (gap, max load, the ≥ i fractions) are of copies; the redundancy block
//     reports the jobs: jobs per server (copies / d, exactly, since a job
//     present has its d copies present) and the mean response time by
//     Little's law, with the paper's large-system prediction beside them
//     (core/theory/redundancy.go; for d = 2, E[T] = −ln(1 − λ)/λ² − 1/λ).
//     The prediction rests on the paper's asymptotic independence of the
//     queues as n → ∞; at finite n the simulation may differ by O(1/n).

// Redundancy is Redundancy-d.
type Redundancy struct {
	D int
}

var redundancyEntry = &Entry{
	Name: "redundancy", Order: 25,
	Summary: "redundancy-d (supermarket model only): each job copied to d distinct uniform servers, FCFS; the first copy served cancels the others",
	Source:  "Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky, Zbarsky 2017 (Oper. Res.)",
	Reports: []*result.Kind{result.RedundancyKind},
	New:     func() Process { return &Redundancy{D: 2} },
}

func init() { Register(redundancyEntry) }

func (*Redundancy) Entry() *Entry { return redundancyEntry }

func (p *Redundancy) Params() []*Param {
	return []*Param{DParam(&p.D, "")}
}

func (p *Redundancy) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d: want at most --bins (%d): a job's copies go to d distinct servers", p.D, su.Bins)
	}
	return nil
}

// Copies is d (Replicated): the engine runs the supermarket by the
// process's own event loop.
func (p *Redundancy) Copies() int { return p.D }

// Footprint: a server's queue ends (two int32), and about λ·E[T]·n jobs
// of d copies (three words each) at a time; counted as n jobs.
func (p *Redundancy) Footprint(f *units.Footprint, m Mem) {
	f.Add(m.BinsCulprit, m.BinsHint, m.Bins*(8+12*uint64(p.D)))
}
