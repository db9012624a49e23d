package kernels

import (
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestAliasFrequencies(t *testing.T) {
	r := TrialStream(6, 0, LaneChoices)
	for _, w := range [][]uint64{{1}, {1, 1}, {5, 0, 3, 2}, {1000, 1, 1, 1, 0, 7}, {3, 3, 3, 3, 3, 3, 3, 1 << 40}} {
		a, err := NewAlias(w)
		if err != nil {
			t.Fatal(err)
		}
		const N = 400000
		count := make([]float64, len(w))
		for range N {
			count[a.Draw(&r)]++
		}
		total := 0.0
		for _, x := range w {
			total += float64(x)
		}
		chi, df := 0.0, -1
		for i, x := range w {
			e := N * float64(x) / total
			if e == 0 {
				if count[i] > 0 {
					t.Fatalf("weights %v: outcome %d of weight 0 drawn %v times", w, i, count[i])
				}
				continue
			}
			if e < 5 {
				continue
			}
			chi += (count[i] - e) * (count[i] - e) / e
			df++
		}
		if df > 0 {
			if limit := (distuv.ChiSquared{K: float64(df)}).Quantile(1 - 1e-4); chi > limit {
				t.Errorf("weights %v: χ² = %.1f > %.1f", w, chi, limit)
			}
		}
	}
	if _, err := NewAlias(nil); err == nil {
		t.Error("NewAlias accepted no outcomes")
	}
	if _, err := NewAlias([]uint64{0, 0}); err == nil {
		t.Error("NewAlias accepted zero weight")
	}

}
