package haar_test

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/haar"
)

// WritePlan and WriteMeasured say what balloc haar-info prints: the tree,
// C, the drift of every level, and the measured differences with their
// 95% intervals.
func TestWritePlan(t *testing.T) {
	s, err := core.NewSpec("graphical", map[string]string{"graph": "cycle:64", "strategy": "haar"}, core.Common{Balls: 1, Trials: 1, Seed: 1, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	h := s.HaarSetting()
	haar.WritePlan(&b, s.Graph(), s.Haar().Info, h.Scale, h.Route, h.Asked)
	haar.WriteMeasured(&b, s.Haar(), s.Graph().N, 20, 1)
	for _, want := range []string{"graph        cycle:64", "tree         depth 6", "flows routed in G[S_i]", "  depth  1 ", "measured     mean", "predicted"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}
