package concurrency

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/balloc/balloc/kernels"
)

// TestTallyMergeAgainstLiteral merges tallies of values on both sides of
// tallyDense (the values counted by value and those listed), with repeats
// among the large ones, against the distribution read off the sorted
// values: the histogram's run lengths, the count, the mean, the maximum,
// and each quantile as the sorted value at ⌊q·count⌋. It catches a large
// value lost or counted twice, a repeat left as two histogram entries, the
// list merged out of order, and the boundary value put on the wrong side.
func TestTallyMergeAgainstLiteral(t *testing.T) {
	r := kernels.TrialStream(3, 0, 0)
	for trial := range 50 {
		ts := make([]tally, 1+trial%4)
		var all []uint64
		for k := range ts {
			for range r.Bounded(2000) {
				var v uint64
				switch r.Bounded(5) {
				case 0:
					v = uint64(r.Bounded(50))
				case 1:
					v = tallyDense - 2 + uint64(r.Bounded(4)) // straddles the boundary
				case 2:
					v = tallyDense + uint64(r.Bounded(20)) // large repeats
				case 3:
					v = uint64(r.Bounded(1 << 30))
				default:
					v = uint64(r.Bounded(tallyDense))
				}
				ts[k].add(v)
				all = append(all, v)
			}
		}
		got := merge(ts)
		slices.Sort(all)
		var want Dist
		total := 0.0
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j] == all[i] {
				j++
			}
			want.Histogram = append(want.Histogram, [2]uint64{all[i], uint64(j - i)})
			i = j
		}
		for _, v := range all {
			total += float64(v)
		}
		want.Count = uint64(len(all))
		if want.Count > 0 {
			want.Max = all[len(all)-1]
			want.Mean = total / float64(want.Count)
			at := func(q float64) uint64 { return all[min(uint64(q*float64(want.Count)), want.Count-1)] }
			want.P50, want.P90, want.P99, want.P999 = at(0.5), at(0.9), at(0.99), at(0.999)
		}
		if math.Abs(got.Mean-want.Mean) > 1e-9*want.Mean {
			t.Fatalf("trial %d: mean %v, want %v", trial, got.Mean, want.Mean)
		}
		got.Mean = want.Mean
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: merged %+v\nwant %+v", trial, got, want)
		}
	}
}
