package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/optimal"
)

// TestOptimalPrintsTheDP: balloc optimal prints the DP's optimum and the
// best fixed thresholds' values as core/optimal computes them, and its
// simulated mean.
func TestOptimalPrintsTheDP(t *testing.T) {
	for _, c := range []struct {
		args []string
		k    int
	}{
		{[]string{"--process", "two-thinning", "--bins", "4", "--balls", "6"}, 2},
		{[]string{"--process", "k-thinning", "--k", "3", "--bins", "3", "--balls", "5", "--rule", "relative"}, 3},
	} {
		var out, errs bytes.Buffer
		if code := Main(append([]string{"optimal"}, c.args...), &out, &errs); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs.String())
		}
		sp, err := optimal.NewSpace(atoi(c.args, "--bins"), atoi(c.args, "--balls"))
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := optimal.Solve(sp, c.k, false)
		best, _ := optimal.BestFixed(sp, c.k, optimal.Relative, optimal.DefaultRange(optimal.Relative, sp.N, sp.M))
		for _, want := range []string{
			fmt.Sprintf("E[max load] = %.10f (exact DP", v),
			fmt.Sprintf("best θ = %s (θ in %s), E[max load] = %.10f", best, best.Class(), best.Value),
			"simulated ",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, want, out.String())
			}
		}
	}
}

func atoi(args []string, flag string) int {
	for i, a := range args {
		if a == flag {
			var x int
			fmt.Sscan(args[i+1], &x)
			return x
		}
	}
	return 0
}

// TestOptimalRefusesInOneLine: two-thinning takes no --k, and a size whose
// states do not fit is refused with the estimate.
func TestOptimalRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--process", "two-thinning", "--k", "3", "--bins", "4"}, "--k is for k-thinning"},
		{[]string{"--process", "two-thinning", "--bins", "120", "--balls", "120"}, "states and"},
	} {
		var out, errs bytes.Buffer
		code := Main(append([]string{"optimal"}, c.args...), &out, &errs)
		if code != 2 || out.Len() != 0 || strings.Count(errs.String(), "\n") != 1 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out.String(), errs.String(), c.want)
		}
	}
}
