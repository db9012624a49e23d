package engine

import (
	"fmt"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// The periodic update board (--update-period): the exact law of the loads
// after a few events for tiny n, from the model's definition on the pair
// (real loads, board), with power against fresh loads; and a board
// refreshed after every event is the fresh run draw for draw.

// boardLaw propagates the law of (loads, board) through events events of
// JSQ(d) with arrival probability a, the board copied from the loads after
// every `every` events, and returns the law of the loads.
func boardLaw(n, d, events, every int, a float64) map[vec]float64 {
	type state struct{ loads, board vec }
	law := map[state]float64{{vec(make([]byte, n)), vec(make([]byte, n))}: 1}
	for e := 1; e <= events; e++ {
		next := map[state]float64{}
		for st, p := range law {
			board := make([]int, n)
			for i := range board {
				board[i] = int(st.board[i])
			}
			// Arrival: the least loaded on the board of d samples, ties uniform.
			for b, pb := range dChoiceExact(n, d)(board, 0) {
				if pb > 0 {
					w := []byte(st.loads)
					w[b]++
					next[state{vec(w), st.board}] += p * a * pb
				}
			}
			// Departure: a uniform bin, when its real queue is non-empty.
			for b := range n {
				w := []byte(st.loads)
				if w[b] > 0 {
					w[b]--
				}
				next[state{vec(w), st.board}] += p * (1 - a) / float64(n)
			}
		}
		if e%every == 0 {
			refreshed := map[state]float64{}
			for st, p := range next {
				refreshed[state{st.loads, st.loads}] += p
			}
			next = refreshed
		}
		law = next
	}
	out := map[vec]float64{}
	for st, p := range law {
		out[st.loads] += p
	}
	return out
}

func boardVectors(t *testing.T, n, d, events int, lambda, period float64, trials int, seed uint64) map[vec]int {
	t.Helper()
	params := map[string]string{"d": fmt.Sprint(d)}
	s, err := core.NewSpec("d-choice", params, core.Common{Bins: uint64(n), Trials: trials, Seed: seed, Alpha: 1, KeepLoads: true,
		Dynamic: core.Dynamic{ArrivalRate: lambda, Events: uint64(events), UpdatePeriod: period}})
	if err != nil {
		t.Fatal(err)
	}
	obs := map[vec]int{}
	for k := range trials {
		r := lawTrial(s, uint64(k))
		v := make([]byte, n)
		for i, x := range r.Loads {
			v[i] = byte(x)
		}
		obs[vec(v)]++
	}
	return obs
}

func TestBoardMatchesExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	for i, c := range []struct {
		n, d, events, every int
		lambda              float64
	}{
		{3, 2, 9, 3, 0.8},
		{2, 2, 10, 4, 0.9},
		{4, 3, 7, 2, 0.9},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			// The period that makes `every` events: T·n(1+λ) = every.
			period := float64(c.every) / (float64(c.n) * (1 + c.lambda))
			obs := boardVectors(t, c.n, c.d, c.events, c.lambda, period, trials, uint64(600+i))
			a := c.lambda / (1 + c.lambda)
			if stat, limit, df := stattest.Law(boardLaw(c.n, c.d, c.events, c.every, a), obs, trials); stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
			}
			// Power: the same runs fail against fresh loads (a board refreshed every event).
			if stat, limit, _ := stattest.Law(boardLaw(c.n, c.d, c.events, 1, a), obs, trials); stat <= limit {
				t.Errorf("passed as fresh loads: χ² = %.1f ≤ %.1f", stat, limit)
			}
		})
	}
}

// A board refreshed after every event is fresh information: the run is the
// plain supermarket on the direct engine, draw for draw.
func TestBoardEveryEventIsFresh(t *testing.T) {
	const n, lambda = 500, 0.9
	com := core.Common{Bins: n, Trials: 1, Seed: 4, Alpha: 1, Engine: core.EngineDirect, KeepLoads: true, Checkpoints: 5,
		Dynamic: core.Dynamic{ArrivalRate: lambda, Time: 30, Warmup: 5}}
	fresh, err := core.NewSpec("two-choice", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	com.Dynamic.UpdatePeriod = 1 / (n * (1 + lambda))
	board, err := core.NewSpec("two-choice", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	a, b := RunTrial(fresh, 0, nil), RunTrial(board, 0, nil)
	da, db := *a.Dynamic, *b.Dynamic
	a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS, a.Params, b.Params, a.Dynamic, b.Dynamic = 0, 0, 0, 0, nil, nil, nil, nil
	if fmt.Sprintf("%+v %+v", *a, da) != fmt.Sprintf("%+v %+v", *b, db) {
		t.Errorf("fresh and every-event board differ:\n%+v %+v\n%+v %+v", *a, da, *b, db)
	}
	// And a staler board is another run.
	com.Dynamic.UpdatePeriod = 1
	stale, _ := core.NewSpec("two-choice", nil, com)
	if c := RunTrial(stale, 0, nil); c.Dynamic.MeanQueue == da.MeanQueue {
		t.Error("a board of period 1 changed nothing")
	}
}
