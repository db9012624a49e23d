package concurrency

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/balloc/balloc/kernels"
)

// shardStage2Literal is the stage as the design states it, one branch at a
// time: the less loaded of the two bins (the first on a tie); an own bin
// takes the ball, a foreign one goes on the list.
func shardStage2Literal(loads []uint32, idx []uint32, mul, w uint64, placed uint64) (foreign []uint32, counts []uint64) {
	for k := 0; k+1 < len(idx); k += 2 {
		b := idx[k]
		if loads[idx[k+1]] < loads[b] {
			b = idx[k+1]
		}
		if uint64(owner(b, mul)) == w {
			loads[b]++
			placed++
		} else {
			foreign = append(foreign, b)
		}
		counts = append(counts, placed)
	}
	return foreign, counts
}

// TestShardStage2AgainstLiteral runs the stage loop that the build uses
// (the assembly on amd64 outside -race), and the Go loop, against the
// literal loop: the same loads after it, the sinks untouched but for adds,
// the same foreign bins in order, the same count. The loads are small, so
// ties are common; n runs from 2 bins to 2^20, W from 2 to 7, every w.
// Which bug it catches: a tie sent to the second bin (CMOV on below-or-
// equal), a foreign ball added to its bin or an own one to the sink, the
// owner rounded the other way, the count or the list advanced on the
// wrong balls, the last ball of a stage left out.
func TestShardStage2AgainstLiteral(t *testing.T) {
	r := kernels.TrialStream(5, 0, 0)
	for _, n := range []uint64{2, 3, 17, 1000, 1 << 20} {
		for _, W := range []int{2, 3, 4, 7} {
			mul := ownerMul(W, n)
			for w := range W {
				for _, c := range []int{1, 2, 63, shardStage} {
					if n > 1000 && (W > 2 || c < shardStage) {
						continue // the large array once a worker: its reads stray far
					}
					t.Run(fmt.Sprintf("n=%d/W=%d/w=%d/c=%d", n, W, w, c), func(t *testing.T) {
						for _, stride := range []uint64{1, CacheLine / 4} {
							ls := newLoads(n, map[uint64]Layout{1: Packed, CacheLine / 4: Padded}[stride], W)
							all := ls.cells[:cap(ls.cells)]
							want := make([]uint32, n)
							for b := range want {
								want[b] = r.Bounded(4)
								all[uint64(b)*stride].Store(want[b])
							}
							idx := make([]uint32, 2*c)
							for k := range idx {
								idx[k] = r.Bounded(uint32(n))
							}
							placed := uint64(r.Bounded(1000))
							wantF, wantCounts := shardStage2Literal(want, idx, mul, uint64(w), placed)
							for name, run := range map[string]func(*[shardStage]uint32, *atomic.Uint64) int{
								"build": func(f *[shardStage]uint32, m *atomic.Uint64) int {
									return shardStage2(all, stride, idx, mul, uint64(w), ls.sinkCell(w), f, m, placed)
								},
								"go": func(f *[shardStage]uint32, m *atomic.Uint64) int {
									return shardStage2Go(all, stride, idx, mul, uint64(w), ls.sinkCell(w), f, m, placed)
								},
							} {
								before := ls.Snapshot()
								sinkBefore := make([]uint32, W)
								for v := range W {
									sinkBefore[v] = all[ls.sinkCell(v)].Load()
								}
								var f [shardStage]uint32
								var mine atomic.Uint64
								nf := run(&f, &mine)
								got := ls.Snapshot()
								if !slices.Equal(got, want) {
									t.Fatalf("%s, stride %d: the loads after the stage differ from the literal loop's", name, stride)
								}
								if !slices.Equal(f[:nf], wantF) {
									t.Fatalf("%s, stride %d: foreign bins %v, want %v", name, stride, f[:nf], wantF)
								}
								if mine.Load() != wantCounts[len(wantCounts)-1] {
									t.Fatalf("%s, stride %d: count %d, want %d", name, stride, mine.Load(), wantCounts[len(wantCounts)-1])
								}
								for v := range W {
									d := all[ls.sinkCell(v)].Load() - sinkBefore[v]
									if v != w && d != 0 || v == w && int(d) != len(wantF) {
										t.Fatalf("%s, stride %d: sink of worker %d took %d adds (worker %d ran, %d foreign)", name, stride, v, d, w, len(wantF))
									}
								}
								for b := range before { // undo, for the other loop
									all[uint64(b)*stride].Store(before[b])
								}
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkShardStage2 runs the stage loop one goroutine at a time on
// n = 2^20 packed bins, as worker 0 of 2 (half the balls foreign), by the
// loop the build uses and by the Go loop; balls/s.
func BenchmarkShardStage2(b *testing.B) {
	const n, W = 1 << 20, 2
	for _, name := range []string{"build", "go"} {
		b.Run(name, func(b *testing.B) {
			ls := newLoads(n, Packed, W)
			all := ls.cells[:cap(ls.cells)]
			r := kernels.TrialStream(1, 0, 0)
			var idx [2 * shardStage]uint32
			var f [shardStage]uint32
			var mine atomic.Uint64
			mul, sink := ownerMul(W, n), ls.sinkCell(0)
			placed := uint64(0)
			b.ResetTimer()
			for range b.N {
				r.FillBounded(idx[:], n)
				var nf int
				if name == "build" {
					nf = shardStage2(all, 1, idx[:], mul, 0, sink, &f, &mine, placed)
				} else {
					nf = shardStage2Go(all, 1, idx[:], mul, 0, sink, &f, &mine, placed)
				}
				placed += shardStage - uint64(nf)
			}
			b.ReportMetric(float64(b.N)*shardStage/b.Elapsed().Seconds(), "balls/s")
		})
	}
}

// TestPrefetchBinsNeverFaults prefetches the lines of a batch whose
// measured entries carry data words that name no bin (up to 2^31 − 1 cells
// past the loads, far outside any mapping): a prefetch is a hint and must
// not fault, and it changes no load. An opcode that loads, or one that
// writes, would crash here or change the loads.
func TestPrefetchBinsNeverFaults(t *testing.T) {
	ls := newLoads(1000, Packed, 2)
	for b := range uint64(1000) {
		ls.cells[b].Store(uint32(b))
	}
	batch := []uint32{3, 999 | shardMeasured, 0xffffffff, 0x7fffffff, 0x12345678, 0, 500}
	prefetchBins(&ls.cells[0], &batch[0], len(batch))
	for b, v := range ls.Snapshot() {
		if v != uint32(b) {
			t.Fatalf("bin %d holds %d after the prefetch, want %d", b, v, b)
		}
	}
}

// The rings of a run lie side by side: each must be a whole number of
// cache lines, with its tail and head each starting a line and its count
// of entries sent followed by a line's rest, so that no line holds words
// two pairs write; and at most 1 KiB (MaxShardedWorkers' bound on a run's
// W² rings). The layout before this test (776 bytes) fails it.
func TestRingLayout(t *testing.T) {
	var r ring
	size, base := unsafe.Sizeof(r), uintptr(unsafe.Pointer(&r))
	tail := uintptr(unsafe.Pointer(&r.tail)) - base
	head := uintptr(unsafe.Pointer(&r.head)) - base
	sent := uintptr(unsafe.Pointer(&r.sent)) - base
	if size%CacheLine != 0 || size > 1024 || tail%CacheLine != 0 || head%CacheLine != 0 || size-sent < CacheLine {
		t.Errorf("a ring is %d bytes, its tail at %d, head at %d, count sent at %d: want lines of %d to themselves, at most 1024 bytes",
			size, tail, head, sent, CacheLine)
	}
}
