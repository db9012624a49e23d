package graph

import (
	"runtime"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/units"
)

// allocated returns the bytes f allocated in all (runtime.MemStats
// TotalAlloc, garbage included): an upper bound on the memory it held at
// once.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// slack is what a builder allocates beside its arrays: its description,
// the graph's header, a generator's small state.
const slack = 64 << 10

// Every builder's estimate bounds what it allocates: an estimate that
// leaves out an array (the hyperedges, the generator's points, the CSR)
// lets a structure start that then cannot be allocated.
func TestBuildEstimatesBoundAllocations(t *testing.T) {
	opt := Options{Seed: 7}
	for _, tc := range []struct {
		spec string
		need uint64
		f    func() error
	}{
		{"random-regular:100000,3", regularBytes(100000, 3), func() error { _, err := Parse("random-regular:100000,3", opt); return err }},
		{"random-regular:2000,1990 (a complement)", regularBytes(2000, 1990), func() error { _, err := Parse("random-regular:2000,1990", opt); return err }},
		{"random-regular:1000,30 (the chain)", regularBytes(1000, 30), func() error { _, err := Parse("random-regular:1000,30", opt); return err }},
		{"erdos-renyi:100000,0.0001", func() uint64 {
			want := 0.0001*100000*99999/2 + 6*2236.0 + 16
			return 8*uint64(want) + explicitBytes(100000, uint64(want))
		}(), func() error { _, err := Parse("erdos-renyi:100000,0.0001", opt); return err }},
		{"joined-expanders:100000,3,2", regularBytes(50000, 3) + 4*300000 + explicitBytes(100000, 150000) + 8*100000,
			func() error { _, err := Parse("joined-expanders:100000,3,2", opt); return err }},
		{"hyperedges random:100000,16", 4 * 100000 * 16, func() error { _, err := ParseHyper("random:100000,16", 1000000, opt); return err }},
	} {
		var err error
		got := allocated(func() { err = tc.f() })
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got > tc.need+slack {
			t.Errorf("%s allocated %d bytes, more than its estimate of %d", tc.spec, got, tc.need)
		}
	}
	h, err := ParseHyper("random:10000,16", 100000, opt)
	if err != nil {
		t.Fatal(err)
	}
	sopt := HyperStatsOptions{Balls: 1000}
	if got, need := allocated(func() { ComputeHyperStats(h, 2, sopt) }), HyperStatsBytes(h, sopt); got > need+slack {
		t.Errorf("hypergraph statistics allocated %d bytes, more than their estimate of %d", got, need)
	}
}

// A structure larger than the memory available is refused before its
// first array: random:1e9,16 asked for one 64 GB block.
func TestBuildRefusedBeyondMemory(t *testing.T) {
	defer func(f func() units.Memory) { availableMemory = f }(availableMemory)
	SetAvailableMemory(func() uint64 { return 1 << 30 })
	for _, tc := range []struct {
		f    func() error
		want string
	}{
		{func() error { _, err := ParseHyper("random:1e9,16", 1e6, Options{}); return err },
			"--hyperedges random:1e9,16: building it needs about 59.6 GiB, more than the 1.0 GiB of memory available (set by a test)"},
		{func() error { _, err := Parse("random-regular:1e9,3", Options{}); return err }, "--graph random-regular:1e9,3: building it needs about"},
		{func() error { _, err := Parse("erdos-renyi:1e5,0.1", Options{}); return err }, "--graph erdos-renyi:1e5,0.1: building it needs about"},
		{func() error { _, err := Parse("joined-expanders:1e8,4,2", Options{}); return err }, "--graph joined-expanders:1e8,4,2: building it needs about"},
	} {
		if err := tc.f(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v; want %q", err, tc.want)
		}
	}
	if err := CheckHyperStatsSpec("random:5e7,4", 1e8, HyperStatsOptions{}); err == nil || !strings.Contains(err.Error(), "building it and its statistics need about") {
		t.Errorf("hypergraph statistics of random:5e7,4 before building: %v; want a refusal", err)
	}
	if err := CheckHyperStatsSpec("random:1000,4", 1e4, HyperStatsOptions{}); err != nil {
		t.Errorf("a small hypergraph: %v", err)
	}
	h := &Hypergraph{Spec: "random:1e8,4", Family: RandomK, N: 1e8, S: 1e8, K: 4}
	if err := CheckHyperStats(h, HyperStatsOptions{}); err == nil || !strings.Contains(err.Error(), "its statistics need about") {
		t.Errorf("hypergraph statistics of 1e8 bins: %v; want a refusal", err)
	}
}
