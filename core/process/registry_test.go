package process

import (
	"strings"
	"testing"
)

// Every entry's declared capabilities are consistent, so that an engine
// never meets a process it cannot drive: each runs on the direct engine
// (integer loads) or the vector engine; a weighted one has a loop for
// random weights (or runs on the vector engine); every parameter's default
// parses; and Capabilities says what the type implements.
func TestRegistryCapabilitiesConsistent(t *testing.T) {
	if len(Entries()) < 16 {
		t.Fatalf("%d processes registered, want the 16 of the catalogue", len(Entries()))
	}
	for _, e := range Entries() {
		p := e.New()
		if p.Entry() != e {
			t.Errorf("%s: New().Entry() is %s", e.Name, p.Entry().Name)
		}
		_, direct := p.(Direct)
		_, vector := p.(Vector)
		_, real := p.(DirectWeighted)
		_, replicated := p.(Replicated) // Redundancy-d: the supermarket's own event loop
		_, leaking := p.(Leaking)       // leaky bins: the direct engine's rounds (core/engine/leaky.go)
		if !direct && !vector && !replicated && !leaking {
			t.Errorf("%s runs on no engine (neither Direct, Vector nor Replicated)", e.Name)
		}
		if e.Weighted && !real && !vector {
			t.Errorf("%s takes --weights but has no loop for them", e.Name)
		}
		if !e.Weighted && real {
			t.Errorf("%s has a weighted loop but does not take --weights", e.Name)
		}
		if _, ok := p.(Histogram); ok && !direct {
			t.Errorf("%s is symmetric but has no direct loop to check the histogram engine against", e.Name)
		}
		for _, q := range p.Params() {
			if q.Default != "" {
				if err := q.Set(q.Default); err != nil {
					t.Errorf("%s --%s: default %q does not parse: %v", e.Name, q.Name, q.Default, err)
				}
			} else if q.Required == "" {
				t.Errorf("%s --%s has neither a default nor words for a user who left it out", e.Name, q.Name)
			}
			if FlagOf(q.Name) == nil {
				t.Errorf("%s --%s is not a flag", e.Name, q.Name)
			}
		}
		caps := e.Capabilities()
		_, hist := p.(Histogram)
		_, fluid := p.(Fluid)
		_, conc := p.(Concurrent)
		if strings.Contains(caps, "histogram") != hist || strings.Contains(caps, "fluid") != fluid ||
			strings.Contains(caps, "concurrent") != conc || strings.Contains(caps, "weights") != e.Weighted {
			t.Errorf("%s: capabilities %q disagree with its methods", e.Name, caps)
		}
		if e.Symmetric() != hist || e.HasFluid() != fluid {
			t.Errorf("%s: Symmetric/HasFluid disagree with its methods", e.Name)
		}
	}
}

// The catalogue's order and names are unique, and Lookup finds each entry
// and refuses an unknown name with the list of known ones.
func TestRegistryLookup(t *testing.T) {
	seen := map[int]string{}
	for _, e := range Entries() {
		if o, ok := seen[e.Order]; ok {
			t.Errorf("%s and %s share order %d", e.Name, o, e.Order)
		}
		seen[e.Order] = e.Name
		if got, err := Lookup(e.Name); err != nil || got != e {
			t.Errorf("Lookup(%q) = %v, %v", e.Name, got, err)
		}
	}
	if _, err := Lookup("two-choices"); err == nil || !strings.Contains(err.Error(), "known: ") || !strings.Contains(err.Error(), "two-choice") {
		t.Errorf("Lookup of an unknown name: %v", err)
	}
}

// Apply sets given values, fills defaults, refuses a parameter the process
// does not take (naming what it takes) and a required one left out; a
// parameter a process keeps unset (tau-delay's --tau with --delay replay)
// stays unset.
func TestApply(t *testing.T) {
	p := &DChoice{}
	var w Weights
	if err := Apply(p, map[string]string{"d": "5", "weights": "exp:2"}, &w); err != nil || p.D != 5 || p.Dims != 1 || w.Kind != WeightsExp {
		t.Errorf("d-choice d=5: %v, %+v, %+v", err, p, w)
	}
	if err := Apply(&OneChoice{}, map[string]string{"beta": "0.5"}, &w); err == nil || err.Error() != "--beta does not apply to one-choice (it takes --weights)" {
		t.Errorf("one-choice --beta: %v", err)
	}
	if err := Apply(&OnePlusBeta{}, nil, &w); err == nil || err.Error() != "one-plus-beta needs --beta: a probability in [0, 1]" {
		t.Errorf("one-plus-beta without --beta: %v", err)
	}
	if err := Apply(&OnePlusBeta{}, map[string]string{"beta": "1.5"}, &w); err == nil || !strings.HasPrefix(err.Error(), "--beta \"1.5\": ") {
		t.Errorf("one-plus-beta --beta 1.5: %v", err)
	}
	td := &TauDelay{Delayed{Replay: []uint32{3, 1}}} // as core.WithReplay gives it
	if err := Apply(td, map[string]string{"delay": "replay"}, &w); err != nil || td.Tau != 0 {
		t.Errorf("tau-delay --delay replay without --tau: %v (τ %d)", err, td.Tau)
	}
	if err := Apply(&TauDelay{}, map[string]string{"delay": "replay"}, &w); err == nil || !strings.Contains(err.Error(), "needs --replay") {
		t.Errorf("tau-delay --delay replay without a sequence: %v", err)
	}
	if err := Apply(&TauDelay{}, nil, &w); err == nil || !strings.Contains(err.Error(), "needs --tau") {
		t.Errorf("tau-delay without --tau: %v", err)
	}
	if err := Apply(&OneChoice{}, map[string]string{"nonsense": "1"}, &w); err == nil || err.Error() != "--nonsense is not a process parameter" {
		t.Errorf("an unknown parameter: %v", err)
	}
}

// Values shows what a run used and leaves out what it did not: the fixed d
// of an alias, not the vector parameters of scalar balls, not unit weights.
func TestValuesShowWhatRan(t *testing.T) {
	var w Weights
	two := twoChoiceEntry.New()
	if err := Apply(two, nil, &w); err != nil {
		t.Fatal(err)
	}
	if got := ValuesText(Values(two, w)); got != "d=2" {
		t.Errorf("two-choice: %q, want d=2", got)
	}
	d := dChoiceEntry.New()
	if err := Apply(d, map[string]string{"d": "3", "weights": "exp:1"}, &w); err != nil {
		t.Fatal(err)
	}
	if got := ValuesText(Values(d, w)); got != "d=3 weights=exp:1" {
		t.Errorf("d-choice d=3: %q", got)
	}
	g := gAdvCompEntry.New()
	if err := Apply(g, map[string]string{"g": "2"}, &w); err != nil {
		t.Fatal(err)
	}
	if got := ValuesText(Values(g, Weights{})); got != "g=2 adversary=greedy-reverse" {
		t.Errorf("g-adv-comp: %q", got)
	}
}

// Batches as a setting run with unit, scalar balls, and say so in one line.
func TestBatchRefusals(t *testing.T) {
	for _, c := range []struct {
		p    Process
		su   Setup
		want string
	}{
		{&DChoice{D: 2, Dims: 1, Populated: 1, Batch: 10}, Setup{Bins: 10, Weights: Weights{Kind: WeightsExp, Value: 1}}, "--batch 10: d-choice in batches places unit balls"},
		{&DChoice{D: 2, Dims: 3, Populated: 1, Batch: 10}, Setup{Bins: 10}, "--batch 10: batches run with scalar balls, not --dims 3"},
		{&OnePlusBeta{Beta: 0.5, Batch: 4}, Setup{Bins: 10, Weights: Weights{Kind: WeightsConst, Value: 2}}, "--batch 4: one-plus-beta in batches places unit balls"},
	} {
		if err := c.p.Check(&c.su); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q…", c.p.Entry().Name, err, c.want)
		}
	}
	if err := (&DChoice{D: 2, Dims: 1, Populated: 1, Batch: 10}).Check(&Setup{Bins: 10}); err != nil {
		t.Errorf("d-choice in batches of unit balls: %v", err)
	}
}
