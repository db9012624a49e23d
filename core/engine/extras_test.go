package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
)

// checkReports: a trial carries exactly the extra blocks its entry declares
// (process.Entry.Reports), which the CSV header is built from before any
// trial ends; a block a process forgot to declare, or one it declares and
// never fills, fails here.
func checkReports(t *testing.T, e *process.Entry, eng core.Engine, r *result.Result) {
	t.Helper()
	if why := reportsMismatch(e, r); why != "" {
		t.Errorf("%s on %s: %s", e.Name, eng, why)
	}
}

// reportsMismatch says how r's extra blocks differ from e's Reports, "" when
// they agree.
func reportsMismatch(e *process.Entry, r *result.Result) string {
	var got []*result.Kind
	for _, x := range r.Extras {
		got = append(got, x.Kind())
	}
	want := slices.Clone(e.Reports)
	slices.SortFunc(want, func(a, b *result.Kind) int { return a.Rank - b.Rank })
	if !slices.Equal(got, want) {
		return fmt.Sprintf("extra blocks %v, its entry declares %v", keys(got), keys(want))
	}
	return ""
}

func keys(ks []*result.Kind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Key)
	}
	return out
}

// The check above fails where it should: a result without the samples
// twinning declares, and one with probes it does not.
func TestCheckReportsFails(t *testing.T) {
	e, err := process.Lookup("twinning")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*result.Result{{}, {Extras: result.Extras{result.Samples(3), result.ProbesOf(1, 1, 1)}}} {
		if reportsMismatch(e, r) == "" {
			t.Errorf("extras %v passed for twinning", r.Extras)
		}
	}
}
