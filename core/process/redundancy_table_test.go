package process_test

import (
	"slices"
	"strconv"

	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

// Redundancy-d's rows: the supermarket model only (proctable.Row.ArrivalRate;
// the battery's sizes are events), a whole trial of events
// (proctable.Row.Whole) against the direct engine on the battery's 12
// servers, and the exact law of the copies per server after a few events
// (Row.Final) for n = 3 and 4 over the whole state, the order of the jobs
// present. Direct engine only: redundancy has no Histogram, no Placer and
// no --weights.
func init() {
	for _, r := range []struct {
		d         int
		lambda    float64
		n, events int // the law's, for a row with one
	}{
		{1, 0.7, 3, 8},
		{2, 0.7, 3, 8},
		{2, 0.9, 4, 6},
		{3, 0.5, 4, 6},
	} {
		row := proctable.Row{Process: "redundancy", Params: map[string]string{"d": strconv.Itoa(r.d)}, ArrivalRate: r.lambda, Whole: slowRedundancy(r.lambda, r.d)}
		if r.n > 0 {
			row.Final, row.N, row.M = redundancyLaw(r.n, r.events, r.lambda, r.d), r.n, r.events
		}
		table = append(table, row)
	}
}

// slowRedundancy: from empty servers, the trial's events (tr.Balls); each
// an arrival with probability λ/(1+λ) (the kernel's coin), a job whose d
// servers are drawn uniformly one after another, a server drawn before
// drawn again, joining the back of each one's queue; else a uniform server
// whose queue, if non-empty, loses its head job, and that job leaves every
// queue it stands in. The loads are the copies in each queue.
func slowRedundancy(lambda float64, d int) func(uint64, proctable.Trial) []uint64 {
	return func(n uint64, tr proctable.Trial) []uint64 {
		arrive, err := kernels.NewBernoulli(lambda / (1 + lambda))
		if err != nil {
			panic(err)
		}
		queues := make([][]int, n)
		var servers [][]uint32 // job → its servers
		for range tr.Balls {
			if !arrive.Flip(tr.Choices) {
				i := tr.Choices.Bounded(uint32(n))
				if len(queues[i]) == 0 {
					continue
				}
				job := queues[i][0]
				for _, k := range servers[job] {
					queues[k] = slices.DeleteFunc(queues[k], func(j int) bool { return j == job })
				}
				continue
			}
			var picked []uint32
			for len(picked) < d {
				if i := tr.Choices.Bounded(uint32(n)); !slices.Contains(picked, i) {
					picked = append(picked, i)
				}
			}
			servers = append(servers, picked)
			for _, i := range picked {
				queues[i] = append(queues[i], len(servers)-1)
			}
		}
		loads := make([]uint64, n)
		for i, q := range queues {
			loads[i] = uint64(len(q))
		}
		return loads
	}
}

// redundancyLaw is the exact law of the copies per server after the events
// from empty servers. The state is the jobs present in arrival order, each
// the set of its servers (a bit mask): every queue is FCFS, so a server's
// head is its earliest job. Each event is an arrival with probability
// a = λ/(1+λ), its servers each of the n(n−1)…(n−d+1) ordered draws of d
// distinct servers alike; else each server alike, its earliest job, if any,
// leaving. This law barely reads the service order (at these sizes last
// come, first served is 0.001 to 0.003 from it in total variation, past the
// χ² test's reach): the slow loop, event for event, is what holds the
// queues to FCFS.
func redundancyLaw(n, events int, lambda float64, d int) func() map[string]float64 {
	return func() map[string]float64 {
		a := lambda / (1 + lambda)
		var draws []byte // the ordered draws' sets
		var draw func(set byte, k int)
		draw = func(set byte, k int) {
			if k == d {
				draws = append(draws, set)
				return
			}
			for i := range n {
				if set&(1<<i) == 0 {
					draw(set|1<<i, k+1)
				}
			}
		}
		draw(0, 0)
		law := map[string]float64{"": 1}
		for range events {
			next := map[string]float64{}
			for s, p := range law {
				for _, set := range draws {
					next[s+string(set)] += p * a / float64(len(draws))
				}
				for i := range n {
					w := s
					if j := slices.IndexFunc([]byte(s), func(set byte) bool { return set&(1<<i) != 0 }); j >= 0 {
						w = s[:j] + s[j+1:]
					}
					next[w] += p * (1 - a) / float64(n)
				}
			}
			law = next
		}
		loads := map[string]float64{}
		for s, p := range law {
			v := make([]byte, n)
			for _, set := range []byte(s) {
				for i := range n {
					if set&(1<<i) != 0 {
						v[i]++
					}
				}
			}
			loads[string(v)] += p
		}
		return loads
	}
}
