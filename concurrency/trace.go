package concurrency

import (
	"fmt"
	"sync/atomic"

	"github.com/balloc/balloc/kernels"
)

// Traced ages of a goroutine run (Config.TraceAges, racy and cas modes):
// every worker stamps each of its balls with the CPU's time-stamp counter at
// its reads (tscRead: no later load starts before it) — before the first
// load of a bin, again before each re-read of a compare-and-swap retry — and
// at its commit (tscOrdered: after the atomic add or the successful
// compare-and-swap has completed, before the next read stamp) — into a
// log of its own, preallocated: two 8-byte words a ball, plain stores, no
// locked instruction and no allocation on the ball's path. After the run
// the logs are merged by commit stamp into one global commit order, and a
// ball's age is the number of other balls whose commit stamp lies strictly
// between its read stamp and its own commit stamp (traceAges). That is the
// emulated run's age (emulate.go) with the TSC as the clock, so the
// sequence is replayed as τ-Delay the same way.
//
// What it cannot see:
//   - the stamps order the instructions' execution on each core, not the
//     moment a store became visible to the other cores (a locked add is
//     globally visible when it completes, so the commit stamp is after it,
//     by the fence's drain); and a read stamp precedes its load by the
//     load's latency, so commits made while the line was on its way (which
//     the load may well see) count in the age. Measured: one-choice on one
//     bin in cas mode, where a successful compare-and-swap proves that no
//     ball was committed between its load and its commit, 2.6–6% of the
//     traced ages were 1 to 5 (W = 2 and 4, m = 2·10⁶, 2 cores): the ages
//     are upper bounds at that resolution;
//   - two commits on different cores closer together than the skew between
//     those cores' counters may be misordered (the kernel synchronises
//     invariant counters; their residual skew is not measured here);
//   - the stamping slows every ball (three LFENCEs and two RDTSCs), and so
//     changes the staleness it measures: the traced run is not the untraced
//     run, only a run like it;
//   - a worker descheduled between its read and its commit shows as a large
//     age, the balls the others placed meanwhile (TracedPreempted counts the
//     balls with age over preemptedAge·W).

// TSCCheck reports whether this machine can trace ages: an x86-64 CPU with an
// invariant time-stamp counter (tsc_amd64.go). A variable so that tests can
// play a machine without one.
var TSCCheck = checkTSC

// preemptedAge: a traced ball whose age exceeds preemptedAge·W balls counts
// as one whose worker was off the CPU between its read and its commit
// (TracedPreempted). Running, W workers commit about W balls in one ball's
// read-to-commit time, so such an age is three orders of magnitude beyond.
const preemptedAge = 1000

// TraceBytesPerBall is the memory tracing takes: the two stamps during the
// run, and the age kept for the replay after it.
const TraceBytesPerBall = 16 + 4

// CheckTrace reports whether a run in mode, emulated or not, with departures
// or not, can trace its ages; the error names the flag that stops it.
func CheckTrace(mode Mode, emulated, departures bool) error {
	switch {
	case emulated:
		return fmt.Errorf("--trace-ages stamps real goroutines; an emulated run (--emulate) records its exact ages already: leave out --trace-ages")
	case departures:
		return fmt.Errorf("--trace-ages: the ages of a run with departures (--arrival-rate) are not a tau-delay replay; leave out --trace-ages or --arrival-rate")
	case mode != Racy && mode != CAS:
		return fmt.Errorf("--trace-ages traces --mode racy and cas, not --mode %s", mode)
	}
	if err := TSCCheck(); err != nil {
		return fmt.Errorf("--trace-ages: %v", err)
	}
	return nil
}

// newTraceLogs returns each worker's log, two words a ball, with every page
// written once, so that no page fault falls inside the measured run.
func newTraceLogs(m uint64, W int) [][]uint64 {
	logs := make([][]uint64, W)
	for w := range W {
		logs[w] = make([]uint64, 2*share(m, W, w))
		for i := 0; i < len(logs[w]); i += 512 { // 4 KiB pages
			logs[w][i] = 1
		}
	}
	return logs
}

// racyDChoiceTraced is racyDChoice with each ball's read and commit stamps
// written to log (two words a ball, in order); it returns the count of balls
// placed.
func racyDChoiceTraced(r *kernels.PCG32, cells []atomic.Uint32, stride uint64, n uint32, d int, count, placed uint64,
	mine *atomic.Uint64, log []uint64) uint64 {
	log = log[:2*count]
	for q := 0; q+1 < len(log); q += 2 {
		var i uint32
		if d == 2 {
			var j uint32
			i, j = r.Bounded2(n)
			log[q] = tscRead()
			m := -uint32(b2u(cells[uint64(j)*stride].Load() < cells[uint64(i)*stride].Load()))
			i = i&^m | j&m
		} else {
			i = r.Bounded(n)
			log[q] = tscRead()
			bi := cells[uint64(i)*stride].Load()
			for k := 1; k < d; k++ {
				j := r.Bounded(n)
				v := cells[uint64(j)*stride].Load()
				m := -uint32(b2u(v < bi))
				i, bi = i&^m|j&m, bi&^m|v&m
			}
		}
		cells[uint64(i)*stride].Add(1)
		log[q+1] = tscOrdered()
		placed++
		storeOwned64(mine, placed)
	}
	return placed
}

// traceAges merges the workers' logs (logs[w][2k], logs[w][2k+1]: the read
// and commit stamps of worker w's k-th ball) by commit stamp into one commit
// order and writes, for the p-th ball of that order, its age to ages[p]: the
// number of other balls whose commit stamp lies strictly between its read
// stamp and its own commit stamp. When order is not nil, order[p] is that
// ball's worker (each worker's balls appear in its own order). ages and
// order hold one entry a ball. The logs are overwritten: a read stamp with
// the commits swept before it, a commit stamp with its ball's age (so
// logs[w][2k+1] is worker w's k-th ball's age after it returns).
//
// It is one sweep over all stamps in increasing order, a W-way merge by a
// heap (O(m log W)): a read stamp is replaced by the number of commits at or
// before it, and a commit's age is the number of commits strictly before its
// stamp minus that. At equal stamps commits come before reads (a commit at
// its read's stamp is not after it), and ties of stamp and kind go by
// worker. A worker's stamps are in program order when the clock is, so the
// sweep sees each stream sorted; disordered counts the stamps that were not
// (a read before its worker's previous commit, or a commit before its own
// read) — their balls' ages are clamped at 0 and otherwise as the sweep met
// them.
func traceAges(logs [][]uint64, ages, order []uint32) (disordered uint64) {
	W := len(logs)
	pos := make([]int, W)  // next entry of each log
	h := make([]int, 0, W) // heap of the workers with entries left
	less := func(a, b int) bool {
		sa, sb := logs[a][pos[a]], logs[b][pos[b]]
		if sa != sb {
			return sa < sb
		}
		ka, kb := pos[a]&1, pos[b]&1 // 1: commit, 0: read
		if ka != kb {
			return ka > kb
		}
		return a < b
	}
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for w := range W {
		if len(logs[w]) > 0 {
			h = append(h, w)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	last := make([]uint64, W)     // each worker's last commit stamp
	lastRead := make([]uint64, W) // and its last read stamp
	var commits, before, lastStamp uint64
	first := true
	for len(h) > 0 {
		w := h[0]
		p := pos[w]
		s := logs[w][p]
		if p&1 == 0 { // a read: every commit up to s has been swept
			if p > 0 && s < last[w] {
				disordered++
			}
			lastRead[w] = s
			logs[w][p] = commits
		} else { // a commit
			if s < lastRead[w] {
				disordered++
			}
			if first || s != lastStamp {
				before, lastStamp, first = commits, s, false
			}
			age := uint64(0)
			if read := logs[w][p-1]; before > read {
				age = before - read
			}
			ages[commits] = uint32(min(age, 1<<32-1))
			if order != nil {
				order[commits] = uint32(w)
			}
			last[w] = s
			logs[w][p] = age // the stamp is not read again: the head has moved on
			commits++
		}
		pos[w]++
		if pos[w] == len(logs[w]) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return disordered
}

// measuredAges is the law of the traced ages of the measured balls (every
// measure-th ball of each worker, as worker counts them), from logs after
// traceAges: the same balls whose global staleness the striped total gave.
func measuredAges(logs [][]uint64, measure uint64) Dist {
	var t tally
	if measure == 0 {
		return Dist{}
	}
	for _, l := range logs {
		for k := measure - 1; 2*k+1 < uint64(len(l)); k += measure {
			t.add(l[2*k+1])
		}
	}
	return merge([]tally{t})
}
