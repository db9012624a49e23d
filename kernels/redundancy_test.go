package kernels

import (
	"slices"
	"testing"
)

// The Redundancy-d loop against a literal simulation: every server's queue
// a slice of job numbers in arrival order, a job's servers a list, the
// first copy served removing the job from every queue it stands in; event
// for event on the same stream, at n = 50 with d = 1, 2, 3 and λ = 0.9.
func TestRedundancyMatchesLiteral(t *testing.T) {
	const n, events = 50, 200000
	for _, d := range []int{1, 2, 3} {
		q, err := NewRedundancy(n, d, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		r := NewPCG32(11, uint64(d))
		tally := NewTally(n)
		q.Run(&r, events, tally)

		s := NewPCG32(11, uint64(d))
		arrive, _ := NewBernoulli(0.9 / 1.9)
		queues := make([][]int, n)
		var servers [][]uint32 // job → its servers
		present, done := 0, 0
		for range events {
			if !arrive.Flip(&s) {
				i := s.Bounded(n)
				if len(queues[i]) == 0 {
					continue
				}
				job := queues[i][0]
				for _, k := range servers[job] {
					queues[k] = slices.DeleteFunc(queues[k], func(j int) bool { return j == job })
				}
				present--
				done++
				continue
			}
			var picked []uint32
			for len(picked) < d {
				i := s.Bounded(n)
				if !slices.Contains(picked, i) {
					picked = append(picked, i)
				}
			}
			job := len(servers)
			servers = append(servers, picked)
			for _, i := range picked {
				queues[i] = append(queues[i], job)
			}
			present++
		}
		for i := range queues {
			if int(q.Loads[i]) != len(queues[i]) {
				t.Fatalf("d = %d: server %d holds %d copies, %d by the literal loop", d, i, q.Loads[i], len(queues[i]))
			}
		}
		if q.Jobs != uint64(present) || q.Completed != uint64(done) || q.Cancelled != uint64(done*(d-1)) {
			t.Fatalf("d = %d: jobs %d, completed %d, cancelled %d; literal %d, %d, %d", d, q.Jobs, q.Completed, q.Cancelled, present, done, done*(d-1))
		}
		if tally.Total != uint64(d*present) {
			t.Fatalf("d = %d: the tally holds %d copies, want d·jobs = %d", d, tally.Total, d*present)
		}
		if r != s {
			t.Fatalf("d = %d: the streams differ at the end", d)
		}
	}
}
