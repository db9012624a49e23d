package graph

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// joined-expanders:n,d,k is d-regular, simple and connected, with n·d/2
// edges, exactly k of them between the halves, each vertex on at most one;
// the same seed gives the same graph, its own seed overrides the run's.
func TestJoinedExpandersDegreesCutConnectivity(t *testing.T) {
	for _, c := range []struct{ n, d, k uint64 }{{1024, 3, 2}, {1024, 3, 16}, {1024, 4, 8}, {64, 5, 16}, {200, 3, 40}} {
		spec := fmt.Sprintf("joined-expanders:%d,%d,%d", c.n, c.d, c.k)
		g, err := Parse(spec, Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		st := g.Stats()
		if !st.Regular || st.MinDegree != c.d || !st.Connected() || !st.Simple() || g.N != c.n || g.E != c.n*c.d/2 {
			t.Errorf("%s: %+v, want %d-regular, connected, simple, %d edges", spec, st, c.d, c.n*c.d/2)
		}
		h := c.n / 2
		var cut uint64
		across := make([]int, c.n)
		for e := range g.E {
			u, v := g.Edge(e)
			if (u < h) != (v < h) {
				cut++
				across[u]++
				across[v]++
			}
		}
		if cut != c.k || slices.Max(across) > 1 {
			t.Errorf("%s: %d edges between the halves (want %d), a vertex on %d of them", spec, cut, c.k, slices.Max(across))
		}
		again, _ := Parse(spec, Options{Seed: 3})
		own, _ := Parse(spec+",3", Options{Seed: 99})
		other, _ := Parse(spec, Options{Seed: 4})
		if !slices.Equal(g.Edges, again.Edges) || slices.Equal(g.Edges, other.Edges) || !slices.Equal(own.Edges, StructureSeeded(t, spec, 3).Edges) {
			t.Errorf("%s: not one graph per seed", spec)
		}
	}
}

// StructureSeeded parses spec with the run's seed s.
func StructureSeeded(t *testing.T, spec string, s uint64) *Graph {
	g, err := Parse(spec, Options{Seed: s})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Bad joined-expanders values are refused with a line naming the rule.
func TestJoinedExpandersRefusals(t *testing.T) {
	for spec, want := range map[string]string{
		"joined-expanders:1023,3,2":   "even n",
		"joined-expanders:1024,2,2":   "d ≥ 3",
		"joined-expanders:1024,3,3":   "even k",
		"joined-expanders:1024,3,0":   "even k",
		"joined-expanders:1024,3,514": "even k",
		"joined-expanders:22,3,2":     "n/2·d is odd",
		"joined-expanders:16,8,2":     "d < n/2",
		"joined-expanders:16,3,8":     "matching of only",
		"joined-expanders:1024,3":     "want joined-expanders:n,d,k[,seed]",
	} {
		if _, err := Parse(spec, Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", spec, err, want)
		}
	}
}
