package result

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Encode places the extra blocks where the fields of earlier versions
// stood (retries, estimates, samples, then initial_balls, then rbb and
// probes, dynamic last), and UnmarshalJSON reads every block back.
func TestEncodeKeepsTheFieldOrderAndReadsBack(t *testing.T) {
	r := &Result{Process: "p", Params: map[string]any{"d": 2}, Bins: 4, Balls: 8, InitialBalls: 3,
		Dynamic: &Dynamic{Model: "deletions"}}
	r.Add(ProbesOf(12, 3, 8))
	r.Add(&Rounds{Rounds: 5, Released: 9})
	r.Add(Samples(7))
	r.Add(&Estimates{Spread: 0.5, Held: 1})
	r.Add(&Retries{Mean: 1.5, Max: 2, Hist: Histogram{{Load: 1, Count: 4}, {Load: 2, Count: 4}}})
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{`"spec_hash"`, `"retries"`, `"estimates"`, `"samples"`, `"initial_balls"`, `"rbb"`, `"probes"`, `"dynamic"`}
	last := -1
	for _, k := range keys[1:] {
		at := strings.Index(string(b), k)
		if at <= last {
			t.Fatalf("%s out of order in %s", k, b)
		}
		last = at
	}
	if !json.Valid(b) || !strings.HasSuffix(string(b), "}}") {
		t.Fatalf("not one JSON object: %s", b)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Extras, r.Extras) || back.InitialBalls != 3 || back.Dynamic == nil || back.Samples() != 7 {
		t.Fatalf("read back %+v, want %+v", back.Extras, r.Extras)
	}
	again, _ := Encode(&back)
	if string(again) != string(b) {
		t.Fatalf("a second round trip changed the bytes:\n%s\n%s", b, again)
	}
}

// A Result without extras encodes as encoding/json writes it; with extras,
// plain json.Marshal refuses rather than drop them.
func TestPlainMarshalRefusesExtras(t *testing.T) {
	r := &Result{Process: "p", InitialBalls: 2}
	plain, err := json.Marshal(r)
	enc, err2 := Encode(r)
	if err != nil || err2 != nil || string(plain) != string(enc) {
		t.Fatalf("without extras: %s (%v) vs %s (%v)", plain, err, enc, err2)
	}
	r.Add(Samples(3))
	if _, err := json.Marshal(r); err == nil || !strings.Contains(err.Error(), "result.Encode") {
		t.Fatalf("json.Marshal with extras: %v, want a refusal naming result.Encode", err)
	}
}

// Add keeps one block a kind, in rank order.
func TestAddReplacesAndOrders(t *testing.T) {
	var r Result
	r.Add(ProbesOf(1, 1, 1))
	r.Add(Samples(2))
	r.Add(Samples(5))
	if len(r.Extras) != 2 || r.Extras[0] != Samples(5) || r.Probes() == nil {
		t.Fatalf("extras %v", r.Extras)
	}
	for i := 1; i < len(Kinds()); i++ {
		if Kinds()[i-1].Rank >= Kinds()[i].Rank {
			t.Fatalf("kinds out of rank order: %v", Kinds())
		}
	}
}
