package sweep

import (
	"fmt"
	"strings"
	"testing"
)

// missingTrials walks the gaps between the trials present; the obvious
// version checks every trial below the planned count, which a manifest of
// 2^31 trials a point makes a loop of billions.
func TestMissingTrials(t *testing.T) {
	obvious := func(present []uint64, trials uint64) string {
		have := map[uint64]bool{}
		for _, p := range present {
			have[p] = true
		}
		var lost []string
		for i := range trials {
			if !have[i] {
				lost = append(lost, fmt.Sprint(i))
			}
		}
		if len(lost) > maxListedMissing {
			return strings.Join(lost[:maxListedMissing], ",") + fmt.Sprintf(" and %d more", len(lost)-maxListedMissing)
		}
		return strings.Join(lost, ",")
	}
	for _, tc := range []struct {
		present []uint64
		trials  uint64
	}{
		{nil, 3}, {[]uint64{0, 1, 2}, 3}, {[]uint64{1}, 3}, {[]uint64{0, 2}, 3}, {[]uint64{0, 1}, 5},
		{[]uint64{5, 9}, 12}, {nil, 2500}, {[]uint64{3, 1500}, 3000},
	} {
		if got, want := missingTrials(tc.present, tc.trials), obvious(tc.present, tc.trials); got != want {
			t.Errorf("%v of %d: %.80q, want %.80q", tc.present, tc.trials, got, want)
		}
	}
	if got := missingTrials([]uint64{0}, 1<<31); !strings.HasPrefix(got, "1,2,3,") || !strings.HasSuffix(got, ",1000 and 2147482647 more") {
		t.Errorf("2^31 trials, one present: %.40q…%q", got, got[len(got)-30:])
	}
}
