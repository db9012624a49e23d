package engine

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// legalValues are a legal value of every parameter some process requires,
// so that the registry test below can run every process; a new required
// parameter fails it until it has one here.
var legalValues = map[string]string{
	"beta": "0.5", "threshold": "1", "g": "1", "sigma": "1", "rho": "gauss:1", "tau": "4", "batch": "8",
	"graph": "cycle:16", "hyperedges": "random:8,3", "group-size": "2", "delta": "0.5", "eta": "0.5",
	"rounds": "20", "thresholds": "1", "k": "2", "lambda": "0.5", "offsets": "0,1", "deltas": "0.5,0.25",
	"c": "1.25",
}

// Every process of the catalogue runs a trial on every engine it says it
// has, with unit and, where it takes them, random weights; and the
// histogram engine refuses the others with one line naming why (never a
// panic). A process whose capabilities lie fails here.
func TestEveryProcessRunsOnItsEngines(t *testing.T) {
	for _, e := range process.Entries() {
		params := map[string]string{}
		for _, q := range e.New().Params() {
			if q.Default == "" && q.Name != "ages" && q.Name != "replay" {
				v, ok := legalValues[q.Name]
				if !ok {
					t.Fatalf("%s --%s is required: give it a legal value in legalValues", e.Name, q.Name)
				}
				params[q.Name] = v
			}
		}
		if e.Name == "graphical" {
			delete(params, "beta") // --strategy greedy
		}
		bins := uint64(16)
		if e.Name == "hypergraph" || e.Name == "graphical" {
			bins = 0 // the structure fixes them (random:8,3 over --bins: give them)
			if e.Name == "hypergraph" {
				bins = 16
			}
		}
		if _, ok := e.New().(process.Replicated); ok {
			checkReplicated(t, e, params)
			continue
		}
		engines := []core.Engine{core.EngineDirect}
		if e.Symmetric() {
			engines = append(engines, core.EngineHistogram)
		}
		for _, eng := range engines {
			s := mustSpec(t, e.Name, params, core.Common{Bins: bins, Balls: 500, Seed: 3, Engine: eng, Checkpoints: 2})
			r := RunTrial(s, 0, nil)
			if r.Balls != 500 || r.Bins != s.Bins || len(r.Checkpoints) != 2 {
				t.Errorf("%s on %s: %+v", e.Name, eng, r)
			}
			checkReports(t, e, eng, r)
		}
		if !e.Symmetric() {
			_, err := core.NewSpec(e.Name, params, core.Common{Bins: bins, Balls: 500, Trials: 1, Alpha: 1, Engine: core.EngineHistogram})
			if err == nil || !strings.HasPrefix(err.Error(), "--engine histogram: ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s on the histogram engine: %v", e.Name, err)
			}
		}
		if e.Weighted {
			w := map[string]string{"weights": "exp:1"}
			for k, v := range params {
				w[k] = v
			}
			s := mustSpec(t, e.Name, w, core.Common{Bins: bins, Balls: 500, Seed: 3})
			if r := RunTrial(s, 0, nil); r.Balls != 500 || r.Histogram != nil {
				t.Errorf("%s with exp:1 weights: %+v", e.Name, r)
			}
		}
	}
}

// checkReplicated runs a process of the supermarket model only
// (Redundancy-d) there: 500 events on the direct engine, with its declared
// blocks; a static run and the histogram engine are one line each.
func checkReplicated(t *testing.T, e *process.Entry, params map[string]string) {
	dyn := core.Dynamic{ArrivalRate: 0.7, Events: 500}
	s := mustSpec(t, e.Name, params, core.Common{Bins: 16, Seed: 3, Checkpoints: 2, Dynamic: dyn})
	r := RunTrial(s, 0, nil)
	if r.Dynamic == nil || r.Dynamic.Events != 500 || len(r.Checkpoints) != 2 || r.Engine != string(core.EngineDirect) {
		t.Errorf("%s in the supermarket model: %+v", e.Name, r)
	}
	checkReports(t, e, core.EngineDirect, r)
	for _, c := range []core.Common{
		{Bins: 16, Balls: 500, Trials: 1, Alpha: 1},
		{Bins: 16, Trials: 1, Alpha: 1, Engine: core.EngineHistogram, Dynamic: dyn},
	} {
		if _, err := core.NewSpec(e.Name, params, c); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s (engine %q, λ = %g): want one line refusing it, got %v", e.Name, c.Engine, c.Dynamic.ArrivalRate, err)
		}
	}
}
