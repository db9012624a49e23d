package process

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/balloc/balloc/core/graph"

	"github.com/balloc/balloc/internal/files"
)

// The processes on graphs and hypergraphs (graphical.go, hypergraph.go)
// build their structures in Check — generated ones from the run's seed,
// graph.StructureStream — and every trial shares them read-only. This file
// holds what they share: the structure cache and --graph-clean.

// maxStructures bounds the structure cache. The bound is safe: a structure
// is a pure function of its key (spec, seed, cleaning rule, bins, and a
// file's size and time), so an evicted one is rebuilt identically and
// eviction costs time, never a changed result. And it is enough: a sweep
// runs its points in grid order, so the points that share a structure (the
// parameters listed after --graph: --strategy, --beta, …) are consecutive,
// and a sweep listing up to 16 structures per bins and balls value builds
// each once. One listing more cycles through them and rebuilds each point's
// (hypergraph's --d comes before --hyperedges in flag order, so its
// structures alternate). Unbounded, a sweep over many large graphs held
// them all: a graph with 2^32 edges is 32 GiB of edge list.
const maxStructures = 16

// structures caches built graphs, hypergraphs and Haar plans by what
// determines them, least recently used first.
var structures struct {
	sync.Mutex
	entries []structureEntry
}

type structureEntry struct {
	key string
	v   any
}

// structureKey is what determines a structure: its spec, the seed for random
// ones, the cleaning rule, the bins, and a file's size and time.
func structureKey(kind, spec string, seed, bins uint64, clean string) string {
	key := fmt.Sprintf("%s|%s|%d|%d|%s", kind, spec, seed, bins, clean)
	if path, ok := strings.CutPrefix(spec, "file:"); ok {
		files.NoteInput(path) // an input of this run, even when it comes from the cache
		if fi, err := os.Stat(path); err == nil {
			key += fmt.Sprintf("|%d|%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return key
}

// cached returns the structure of key, building it on a miss. The lock is
// held while building, so two specs naming one structure build it once.
func cached[T any](key string, build func() (T, error)) (T, error) {
	structures.Lock()
	defer structures.Unlock()
	if i := slices.IndexFunc(structures.entries, func(e structureEntry) bool { return e.key == key }); i >= 0 {
		e := structures.entries[i]
		structures.entries = append(slices.Delete(structures.entries, i, i+1), e)
		return e.v.(T), nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	if len(structures.entries) >= maxStructures {
		structures.entries = slices.Delete(structures.entries, 0, 1)
	}
	structures.entries = append(structures.entries, structureEntry{key, v})
	return v, nil
}

// GraphCleanParam is --graph-clean, for the processes that read --graph or
// --hyperedges files.
func GraphCleanParam(dst *string) *Param {
	return Choice("graph-clean", "self-loops and duplicate edges in a --graph or --hyperedges file: refuse (an error) or drop",
		dst, "refuse", "drop").Def("refuse").
		ShownWhen(func() bool { return *dst != "refuse" })
}

// graphOptions are the options a structure is parsed with.
func graphOptions(seed uint64, clean string) graph.Options {
	opt := graph.Options{Seed: seed, Clean: graph.CleanRefuse}
	if clean == "drop" {
		opt.Clean = graph.CleanDrop
	}
	return opt
}
