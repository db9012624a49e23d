package process_test

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core/process"
)

// A parameter's group is the first process that requires it (b-batch's
// --batch, a setting of d-choice), else the first that takes it not as a
// setting (tau-delay's --delay); a group's title names the others that
// take its parameters; every parameter of every process has a group.
func TestFlagGroups(t *testing.T) {
	g := process.FlagGroups()
	procs := process.Entries()
	name := func(p string) string {
		if i, ok := g.Owner[p]; ok {
			return procs[i].Name
		}
		return ""
	}
	if name("batch") != "b-batch" || name("delay") != "tau-delay" || name("beta") != "one-plus-beta" {
		t.Errorf("owners: batch %q, delay %q, beta %q; want b-batch, tau-delay, one-plus-beta", name("batch"), name("delay"), name("beta"))
	}
	for i, p := range procs {
		if g.Titles[i] != p.Name && !strings.HasPrefix(g.Titles[i], p.Name+" (also ") {
			t.Errorf("title %q of %s", g.Titles[i], p.Name)
		}
		for _, q := range p.Params() {
			if _, ok := g.Owner[q]; !ok {
				t.Errorf("%s's --%s has no group", p.Name, q)
			}
		}
	}
	if i := g.Owner["batch"]; !strings.Contains(g.Titles[i], "d-choice") {
		t.Errorf("b-batch's title %q does not name d-choice, which takes --batch", g.Titles[i])
	}
}
