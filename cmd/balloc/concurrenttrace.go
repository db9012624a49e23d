package main

import (
	"fmt"
	"io"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core/units"
)

// checkTraceMemory refuses --trace-ages when the loads (need bytes), the two
// 8-byte stamps a ball kept during the run and the 4-byte age a ball kept
// after it take more than the memory available (0 bytes: unknown, no check).
func checkTraceMemory(balls, need uint64, mem units.Memory) error {
	total := units.Add(units.Mul(balls, concurrency.TraceBytesPerBall), need)
	if mem.Bytes > 0 && total > mem.Bytes {
		return fmt.Errorf("--balls %s: --trace-ages keeps two 8-byte stamps and a 4-byte age a ball, %s with the loads, more than the %v; lower --balls or leave out --trace-ages",
			units.FormatCount(balls), units.FormatBytes(float64(total)), mem)
	}
	return nil
}

// printTraceNote says, under the table of a --trace-ages run, what the
// stamps cost (each traced run against the untraced run of the same trial
// just before it), what they cannot see, and the balls preempted apart.
func printTraceNote(stdout io.Writer, rows []concurrentRow) {
	var traced, untraced float64
	var preempted, disordered, balls uint64
	for _, r := range rows {
		if r.UntracedBallsPerS == nil {
			continue
		}
		traced += r.BallsPerS
		untraced += *r.UntracedBallsPerS
		preempted += *r.TracedPreempted
		disordered += r.Concurrent.TracedDisordered
		balls += r.Concurrent.Balls
	}
	fmt.Fprintf(stdout, "\ntraced: each ball stamped with the time-stamp counter (fenced RDTSC) before its first load and after its\n")
	fmt.Fprintf(stdout, "commit, into its worker's log; its age = the balls whose commit stamp lies strictly between its two stamps.\n")
	if untraced > 0 {
		fmt.Fprintf(stdout, "cost: %.3g balls/s traced against %.3g untraced (the same trials just before): %.2f×; %d bytes a ball.\n",
			traced/float64(len(rows)), untraced/float64(len(rows)), traced/untraced, concurrency.TraceBytesPerBall)
	}
	fmt.Fprintf(stdout, "preempted apart: %d of %d balls have an age over 1000·W (their worker was off the CPU between read and commit);\n", preempted, balls)
	fmt.Fprintf(stdout, "%d stamps were out of their worker's program order (counter skew between cores).\n", disordered)
	fmt.Fprintln(stdout, "the measured balls' ages (mean/p50/p99/max) by the striped total, which counts the commits made while the")
	fmt.Fprintln(stdout, "total is read, against the same balls' ages by their stamps:")
	for _, r := range rows {
		if tm := r.Concurrent.TracedMeasured; tm != nil {
			fmt.Fprintf(stdout, "  W = %d, trial %d: striped total %s; stamps %s\n", r.Workers, r.Trial, ageText(r.Concurrent.GlobalStaleness), ageText(*tm))
		}
	}
	fmt.Fprintln(stdout, "cannot see: the stamps order execution on each core, not when a store became visible to the others; a read")
	fmt.Fprintln(stdout, "stamp precedes its load by the load's latency, so commits made meanwhile count (ages are upper bounds at that")
	fmt.Fprintln(stdout, "resolution); commits on two cores closer than their counters' skew may be misordered; the stamping slows each")
	fmt.Fprintln(stdout, "ball and so changes the staleness it measures (compare the untraced gap).")
}

func ageText(d concurrency.Dist) string {
	if d.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g/%d/%d/%d", d.Mean, d.P50, d.P99, d.Max)
}
