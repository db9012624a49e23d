package optimal

import (
	"math"
	"strings"
	"testing"
)

// A study writes the optimum beside the simulated policy (± a 95% interval)
// and each rule's best fixed threshold, at n = m = 5 where the optimum is
// 1.8484352 (the exact DP; README's table).
func TestStudyRun(t *testing.T) {
	st := &Study{Process: "two-thinning", N: 5, M: 5, K: 2, Rules: []Rule{Relative, Absolute}, ThetaMax: math.NaN(), Trials: 1000, Seed: 1}
	var err error
	if st.Size, err = Fits(st.N, st.M, st.K, true); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := st.Run(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"process    two-thinning on n = 5 bins, m = 5 balls", "E[max load] = 1.8484352000", "(95% CI) over 1000 runs", "relative   keep load < t/n + θ: best θ", "absolute   keep load < L: best L = 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}
