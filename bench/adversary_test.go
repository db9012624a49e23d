package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core/adversary"
	"github.com/balloc/balloc/kernels"
)

// balloc adversary's loops beside the loop one writes first: b.N trials of
// the built-in sequence alternate:2^20 (2^20 insertions, then the 2^19
// odd-numbered balls deleted: 1.5·2^20 operations a trial), through
// adversary.RunTrial, against naiveAdversary (math/rand/v2, []int loads, a
// slice of each ball's bin, the maximum raised on an insertion and rescanned
// after a deletion from a bin at the maximum). Reports operations/s.

var advSizes = []struct {
	name string
	n    int
}{{"n=4", 4}, {"n=1e3", 1000}}

var advRules = []struct {
	name  string
	rule  adversary.Rule
	width int // naive: 0 Greedy, else the modulated rule's width
}{{"greedy", adversary.Greedy, 0}, {"modulated-w20", adversary.Modulated(20), 20}}

func advSeq(b *testing.B) *adversary.Seq {
	seq, err := adversary.Builtin("alternate:1048576")
	if err != nil {
		b.Fatal(err)
	}
	return seq
}

// BenchmarkAdversary: b.N trials of the sequence, state reused.
func BenchmarkAdversary(b *testing.B) {
	seq := advSeq(b)
	for _, sz := range advSizes {
		for _, r := range advRules {
			b.Run(fmt.Sprintf("%s/%s", r.name, sz.name), func(b *testing.B) {
				st := adversary.NewState(seq, sz.n)
				b.ResetTimer()
				for k := range b.N {
					adversary.RunTrial(seq, sz.n, r.rule, 1, uint64(k), nil, st)
				}
				b.ReportMetric(float64(b.N)*float64(len(seq.Ops))/b.Elapsed().Seconds(), "ops/s")
			})
		}
	}
}

// BenchmarkAdversaryNaive: the naive loop, b.N trials, arrays included.
func BenchmarkAdversaryNaive(b *testing.B) {
	seq := advSeq(b)
	for _, sz := range advSizes {
		for _, r := range advRules {
			b.Run(fmt.Sprintf("%s/%s", r.name, sz.name), func(b *testing.B) {
				for range b.N {
					naiveAdversary(seq.Ops, sz.n, r.width)
				}
				b.ReportMetric(float64(b.N)*float64(len(seq.Ops))/b.Elapsed().Seconds(), "ops/s")
			})
		}
	}
}

// naiveAdversary runs ops (0 inserts, k deletes ball k) and returns the
// largest n·max − present.
func naiveAdversary(ops []uint32, n, width int) int {
	loads := make([]int, n)
	var where []int
	mx, present, best := 0, 0, 0
	for _, op := range ops {
		if op == kernels.AdvInsert {
			i, j := rand.IntN(n), rand.IntN(n)
			b := i
			if width == 0 {
				if loads[j] < loads[i] {
					b = j
				}
			} else if rand.IntN(2*width) >= width+loads[j]-loads[i] {
				b = j
			}
			loads[b]++
			mx = max(mx, loads[b])
			where = append(where, b)
			present++
		} else {
			b := where[op-1]
			loads[b]--
			present--
			if loads[b]+1 == mx {
				mx = 0
				for _, l := range loads {
					mx = max(mx, l)
				}
			}
		}
		best = max(best, n*mx-present)
	}
	return best
}
