package process_test

import (
	"slices"

	"github.com/balloc/balloc/core/graph"
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

// Graphical's rows: the slow loop on graphs of the battery's 12 bins (the
// cycle's and torus's own loops, the complete graph's general one, an edge
// list drawn from the seed, and (1+β)), the exact law on graphs of 3 and 4
// vertices. --strategy haar's rows (slowHaar) read the plan core/haar
// builds: its law per edge is the plan's, checked by core/haar's tests;
// the rows check what the loop does with it.
func init() {
	greedy := map[string]string{}
	table = append(table,
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", greedy), Slow: slowGraphical("cycle:12", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("torus:3,4", greedy), Slow: slowGraphical("torus:3,4", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("complete:12", greedy), Slow: slowGraphical("complete:12", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("random-regular:12,3", greedy), Slow: slowGraphical("random-regular:12,3", -1)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", map[string]string{"strategy": "one-plus-beta", "beta": "0.5"}), Slow: slowGraphical("cycle:12", 0.5)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", map[string]string{"strategy": "haar"}), Slow: slowHaar("cycle:12", 0)},
		proctable.Row{Process: "graphical", Params: graphParams("torus:3,4", map[string]string{"strategy": "haar"}), Slow: slowHaar("torus:3,4", 0)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:12", map[string]string{"strategy": "haar", "stale": "5"}), Slow: slowHaar("cycle:12", 5)},
		proctable.Row{Process: "graphical", Params: graphParams("cycle:3", greedy), Law: graphicalLaw("cycle:3", 1), N: 3, M: 6},
		proctable.Row{Process: "graphical", Params: graphParams("path:4", greedy), Law: graphicalLaw("path:4", 1), N: 4, M: 5},
		proctable.Row{Process: "graphical", Params: graphParams("path:3", map[string]string{"strategy": "one-plus-beta", "beta": "0.25"}), Law: graphicalLaw("path:3", 0.25), N: 3, M: 6},
	)
}

func graphParams(spec string, more map[string]string) map[string]string {
	p := map[string]string{"graph": spec}
	for k, v := range more {
		p[k] = v
	}
	return p
}

// parseGraph is the graph of spec as a run of seed builds it (a random
// graph is drawn from the seed's structure stream).
func parseGraph(spec string, seed uint64) *graph.Graph {
	g, err := graph.Parse(spec, graph.Options{Seed: seed})
	if err != nil {
		panic(err)
	}
	return g
}

// slowGraphical: a uniform edge (u, v) of the graph (core/graph's
// numbering); with β ≥ 0, a β coin says whether the step is greedy; then
// one fair coin, the next bit of a 32-bit output (low bit first, a fresh
// output when the last is spent), drawn on every ball. A greedy ball takes
// the less loaded endpoint, v on a tie when the coin is 1; a non-greedy
// one takes v when the coin is 1, else u. β < 0: greedy, no β coin.
func slowGraphical(spec string, beta float64) func([]uint64, proctable.Trial, uint64) {
	var g *graph.Graph
	var word, left uint32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t == 0 {
			g, word, left = parseGraph(spec, tr.Seed), 0, 0
		}
		u, v := g.Edge(uint64(tr.Choices.Bounded(uint32(g.E))))
		greedy := true
		if beta >= 0 {
			coin, err := kernels.NewBernoulli(beta)
			if err != nil {
				panic(err)
			}
			greedy = coin.Flip(tr.Choices)
		}
		if left == 0 {
			word, left = tr.Choices.Uint32(), 32
		}
		heads := word&1 == 1
		word, left = word>>1, left-1
		pick := u
		switch {
		case !greedy:
			if heads {
				pick = v
			}
		case loads[v] < loads[u], loads[v] == loads[u] && heads:
			pick = v
		}
		loads[pick]++
	}
}

// graphicalLaw: each edge 1/E; with probability β its less loaded
// endpoint (half each on a tie), else either endpoint, half each.
func graphicalLaw(spec string, beta float64) proctable.Transition {
	g := parseGraph(spec, 1)
	return func(loads []int, _ int) []float64 {
		p := make([]float64, g.N)
		w := 1 / float64(g.E)
		for e := range g.E {
			u, v := g.Edge(e)
			switch {
			case loads[u] < loads[v]:
				p[u] += beta * w
			case loads[v] < loads[u]:
				p[v] += beta * w
			default:
				p[u] += beta * w / 2
				p[v] += beta * w / 2
			}
			p[u] += (1 - beta) * w / 2
			p[v] += (1 - beta) * w / 2
		}
		return p
	}
}

// slowHaar: --strategy haar (Bansal and Feldheim, "The power of two choices
// in graphical allocation", the allocation stage) on the plan core/haar
// builds for the graph and seed: a uniform edge (X, Y) of the plan; a
// uniform column of its alias table and one 32-bit output u, the outcome
// the column's own when u < Keep, else its alias; then one fair coin bit
// (as slowGraphical's), drawn on every ball. The outcome is a child code a
// = 2i + flip of a tree node i, or ∅; the ball goes to Y when the set S_a
// is heavier on average than its sibling S_(a xor 1), to X when lighter,
// by the coin on equal averages and on ∅ (Y on 1). The averages are of the
// loads now, or with stale > 1 of the loads after the last multiple of
// stale balls. A field of a column codes a relative to X's leaf lx: k^32
// in bits 0–5, p in bits 6–15, a = (lx >> k) xor p, 0 for ∅; an escaped
// field's codes are in the plan's wide list.
func slowHaar(spec string, stale uint64) func([]uint64, proctable.Trial, uint64) {
	var plan *haar.Plan
	var seen []uint64 // the loads the averages read
	var word, left uint32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t == 0 {
			p, err := haar.Build(parseGraph(spec, tr.Seed), haar.Options{Seed: tr.Seed, Scale: haar.ScaleCongestion})
			if err != nil {
				panic(err)
			}
			plan, word, left = p, 0, 0
		}
		if stale <= 1 || t%stale == 0 {
			seen = slices.Clone(loads)
		}
		tb := &plan.Tables
		e := tb.Edges[tr.Choices.Bounded(uint32(len(tb.Edges)))]
		slot := e.Off + tr.Choices.Bounded(e.Len)
		u := tr.Choices.Uint32()
		if left == 0 {
			word, left = tr.Choices.Uint32(), 32
		}
		heads := word&1 == 1
		word, left = word>>1, left-1
		col := tb.Slots[slot]
		field, a := col.Alias, uint32(0)
		if u < col.Keep {
			field = col.Own
		}
		switch {
		case field == kernels.HaarEscape:
			for _, w := range tb.Wide {
				if w.Slot == slot {
					a = w.Alias
					if u < col.Keep {
						a = w.Own
					}
				}
			}
		case field != 0:
			k, p := uint32(field&63)^32, uint32(field>>6)
			a = plan.Tables.Leaf[e.X]>>k ^ p
		}
		toY := heads
		if a != 0 {
			// avg(S_a) vs avg(S_b) as sum_a·|S_b| vs sum_b·|S_a|.
			sum := func(h uint32) (s, size uint64) {
				for _, v := range plan.Order[plan.Lo[h]:plan.Hi[h]] {
					s += seen[v]
				}
				return s, uint64(plan.Hi[h] - plan.Lo[h])
			}
			sa, na := sum(a)
			sb, nb := sum(a ^ 1)
			switch {
			case sa*nb > sb*na:
				toY = true
			case sa*nb < sb*na:
				toY = false
			}
		}
		if toY {
			loads[e.Y]++
		} else {
			loads[e.X]++
		}
	}
}
