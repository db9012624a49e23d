package process

import (
	"fmt"
	"testing"
)

// TestStructureCacheBound: the cache keeps the 16 most recently used
// structures, evicts the least recently used, and never keeps a failed
// build.
func TestStructureCacheBound(t *testing.T) {
	structures.entries = nil
	builds := 0
	get := func(i int) {
		v, err := cached(fmt.Sprint("test|", i), func() (int, error) { builds++; return i, nil })
		if err != nil || v != i {
			t.Fatalf("cached %d: %d, %v", i, v, err)
		}
	}
	for i := range maxStructures {
		get(i)
	}
	get(0)             // a hit: 0 becomes the most recent, 1 the least
	get(maxStructures) // evicts 1
	if len(structures.entries) != maxStructures || builds != maxStructures+1 {
		t.Fatalf("%d entries after %d builds; want %d after %d", len(structures.entries), builds, maxStructures, maxStructures+1)
	}
	if get(0); builds != maxStructures+1 {
		t.Fatal("the most recently used structure was evicted")
	}
	if get(1); builds != maxStructures+2 {
		t.Fatal("the least recently used structure was kept")
	}
	if _, err := cached("test|bad", func() (int, error) { return 0, fmt.Errorf("bad") }); err == nil {
		t.Fatal("a failed build returned no error")
	}
	rebuilt := false
	if _, err := cached("test|bad", func() (int, error) { rebuilt = true; return 1, nil }); err != nil || !rebuilt {
		t.Fatalf("a failed build was cached: %v", err)
	}
	structures.entries = nil
}
