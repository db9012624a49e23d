package adversary

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/balloc/balloc/internal/stats"
)

// Study is what balloc adversary runs: Trials trials of Seq on N bins
// under each of Rules from Seed, Workers at once, the gap also read after
// each operation count of At (CheckpointOps; none when empty).
type Study struct {
	Seq     *Seq
	N       int
	Rules   []Rule
	Trials  int
	Seed    uint64
	Workers int
	At      []int
}

// Run runs each rule's trials and writes what balloc adversary prints to
// w: per rule the gap at the end, its largest value and the overload, and
// with At a row of gaps per checkpoint, each the mean over the trials ±
// its 95% interval, with the time each rule took.
func (st *Study) Run(w io.Writer) error {
	s := st.Seq
	fmt.Fprintf(w, "sequence   %s on n = %d bins: %d operations, %d insertions, peak %d balls present, %d at the end\n",
		s.Name, st.N, len(s.Ops), s.Inserts, s.Peak, s.End)
	fmt.Fprintf(w, "trials     %d a rule, seed %d (the rules see the same pairs in each trial); mean ± 95%% CI over the trials\n", st.Trials, st.Seed)
	var sums []Summary
	for _, r := range st.Rules {
		t0 := time.Now()
		sum := Run(s, st.N, r, st.Seed, st.Trials, st.Workers, st.At)
		sums = append(sums, sum)
		fmt.Fprintf(w, "%-22s gap at end %s   largest gap %s   overload %s   (%.3g s)\n", r.String(),
			sum.Interval(sum.FinalGap, sum.FinalGapSE), sum.Interval(sum.MaxGap, sum.MaxGapSE),
			sum.Interval(sum.Overload, sum.OverloadSE), time.Since(t0).Seconds())
	}
	if len(st.At) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%12s", "operations")
	for _, r := range st.Rules {
		fmt.Fprintf(w, "  %22s", "gap, "+r.String())
	}
	fmt.Fprintln(w)
	for i, c := range st.At {
		fmt.Fprintf(w, "%12d", c)
		for _, sum := range sums {
			fmt.Fprintf(w, "  %22s", sum.Interval(sum.At[i], sum.AtSE[i]))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// Interval writes a mean over s's trials ± the half-width of its 95%
// interval (Student t with Trials − 1 degrees of freedom times the
// standard error se), as every ± of balloc; one trial has none.
func (s Summary) Interval(mean, se float64) string {
	if math.IsNaN(se) || s.Trials < 2 {
		return fmt.Sprintf("%.3f ± –", mean)
	}
	return fmt.Sprintf("%.3f ± %.3f", mean, stats.T975(s.Trials-1)*se)
}
