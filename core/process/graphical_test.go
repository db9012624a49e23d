package process

import "testing"

// --haar-route auto keeps the plan whose weakest drift λ_i/C is the larger:
// on complete:64 routing in all of G (the sets' own edges starve the small
// sets there), on a cycle the sets (the only route the family allows), and
// on a random 3-regular graph whichever measures the stronger, compared here
// against both plans built explicitly.
func TestHaarRouteAuto(t *testing.T) {
	for _, c := range []struct {
		graph, want string
	}{{"complete:64", "graph"}, {"cycle:64", "set"}, {"random-regular:128,3", ""}} {
		plan := func(route string) *Graphical {
			p := &Graphical{}
			var w Weights
			if err := Apply(p, map[string]string{"graph": c.graph, "strategy": "haar", "haar-route": route}, &w); err != nil {
				t.Fatal(err)
			}
			if err := p.Check(&Setup{Seed: 1, Given: map[string]bool{"graph": true, "strategy": true, "haar-route": true}}); err != nil {
				t.Fatalf("%s --haar-route %s: %v", c.graph, route, err)
			}
			return p
		}
		auto := plan("auto")
		want := c.want
		if want == "" {
			want = "set"
			if weakestDrift(plan("graph").Haar()) > weakestDrift(plan("set").Haar()) {
				want = "graph"
			}
		}
		if auto.Route() != want || auto.Haar() != plan(want).Haar() {
			t.Errorf("%s: auto chose %s, want %s (the same plan as --haar-route %s)", c.graph, auto.Route(), want, want)
		}
	}
}
