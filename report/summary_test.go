package report

import (
	"math"
	"strings"
	"testing"
)

// TestGapCellsBinned: real gaps (random weights) fall into at most 10 bins of
// a round width, not a cell per trial.
func TestGapCellsBinned(t *testing.T) {
	var gaps []float64
	for i := range 20 {
		gaps = append(gaps, 2.13+0.071*float64(i)) // 2.13 … 3.479
	}
	cells := gapCells(gaps, onLattice(gaps))
	total := 0
	for _, c := range cells {
		total += c.Count
		if w := c.High - c.Low; math.Abs(w-0.2) > 1e-12 {
			t.Errorf("bin [%v, %v): width %v, want 0.2", c.Low, c.High, w)
		}
	}
	if len(cells) > 10 || total != 20 || math.Abs(cells[0].Low-2.0) > 1e-12 {
		t.Errorf("cells %+v", cells)
	}
	if !onLattice([]float64{2.5, 3.5, 2.5}) || onLattice([]float64{2.5, 2.75}) {
		t.Error("onLattice")
	}
	if got := cellsText([]Cell{{2, 2.5, 1}, {2.5, 3, 3}}, 4); got != "[2, 2.5): 25%  [2.5, 3): 75%" {
		t.Errorf("cellsText %q", got)
	}
}

// TestCompareStatistics: z and χ² by hand, and the pooling rule.
func TestCompareStatistics(t *testing.T) {
	s := &Summary{Trials: 4, Gaps: []float64{2, 2, 3, 3}, Mean: 2.5, Discrete: true}
	s.SD = stdDev(s.Gaps, s.Mean)
	if r := meanRow(s, "gap mean", s.Gaps, 2); math.Abs(r.z-math.Sqrt(3)) > 1e-12 || r.verdict != "ok" {
		t.Errorf("z = %v, want √3 (0.5/(0.57735/2))", r.z)
	}
	if r := meanRow(s, "gap mean", s.Gaps, 1.6); r.verdict != "OUT" {
		t.Errorf("z = %v, want OUT", r.z)
	}
	one := &Summary{Trials: 1, Gaps: []float64{2}, Mean: 2, SD: math.NaN()}
	if r := meanRow(one, "gap mean", one.Gaps, 1); !math.IsNaN(r.z) || r.verdict != "–" {
		t.Errorf("one trial: z %v verdict %q", r.z, r.verdict)
	}
	var gaps []float64
	for i := range 100 {
		gaps = append(gaps, float64(2+i/50))
	}
	h := &Summary{Trials: 100, Gaps: gaps, Discrete: true}
	r := distRow(h, &ref{dist: []refCell{{2, 46}, {3, 54}}})
	want := 16.0/46 + 16.0/54
	if math.Abs(r.chi2-want) > 1e-12 || r.df != 1 || math.Abs(r.p-0.42223) > 1e-4 || r.verdict != "ok" {
		t.Errorf("χ² %v df %d p %v, want %v, 1, 0.4222", r.chi2, r.df, r.p, want)
	}
	// Expected 10, 80, 6, 4: the last cell (4 < 5) joins the one before.
	r = distRow(h, &ref{dist: []refCell{{2, 10}, {3, 80}, {4, 6}, {5, 4}}})
	want = 40.0*40/10 + 30.0*30/80 + 10.0*10/10
	if r.df != 2 || math.Abs(r.chi2-want) > 1e-9 || r.verdict != "OUT" {
		t.Errorf("pooled: χ² %v df %d, want %v, 2", r.chi2, r.df, want)
	}
	// Expected 1, 97, 2: one cell after pooling, no test.
	r = distRow(h, &ref{dist: []refCell{{2, 1}, {3, 97}, {4, 2}}})
	if r.df != 0 || !math.IsNaN(r.chi2) || !strings.HasPrefix(r.verdict, "–") {
		t.Errorf("one pooled cell: df %d χ² %v verdict %q", r.df, r.chi2, r.verdict)
	}
}
