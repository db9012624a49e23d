package kernels

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
)

// The stale-information loops (stale.go) against slow literal loops drawing
// the same streams, event for event: the delay's seen loads found by a scan
// of the whole history of states, the individual updates' refreshes drawn
// one coin at a time; and benchmarks beside those literal loops.

// literalStaleEvent is literalEvent deciding on seen: the least seen load
// among the samples (the first such), joined in the real loads.
func literalStaleEvent(r *PCG32, lp literalPlacement, loads, seen []int) {
	n := uint32(len(loads))
	literalEvent(r, lp, loads, func() uint64 { return uint64(r.Bounded(n)) }, func(a, b uint64) uint64 {
		if seen[b] < seen[a] {
			return b
		}
		return a
	})
}

// delayHistory is the literal continuous update model: every state with
// the time from which it held.
type delayHistory struct {
	times  []float64
	states [][]int
}

// seenAt returns the loads in force at time x: the last state from a time
// ≤ x, the empty start before the first event.
func (h *delayHistory) seenAt(x float64, n int) []int {
	seen := make([]int, n)
	for k, tk := range h.times {
		if tk <= x {
			seen = h.states[k]
		}
	}
	return seen
}

func TestSupermarketDelayIsLiteral(t *testing.T) {
	for _, lp := range literalCases() {
		for _, n := range []int{1, 3, 40} {
			for _, T := range []float64{1e-9, 0.05, 0.5, 3} {
				t.Run(fmt.Sprintf("%+v/n=%d/T=%g", lp, n, T), func(t *testing.T) {
					sm, _ := NewSupermarket(lp.lambda, lp.pl)
					rate := float64(n) * (1 + lp.lambda)
					fast, slow := NewPCG32(4, 5), NewPCG32(4, 5)
					clock := NewPCG32(8, 9)
					rec := NewDelayRecord[uint32](n, T, rate, NewPCG32(8, 9), 0) // the smallest ring: it grows
					loads := make([]uint32, n)
					want := make([]int, n)
					tally := NewTally(uint64(n))
					h := &delayHistory{}
					now := 0.0
					sums := []float64{}
					for e := range 1500 {
						arrivals := tally.Arrivals
						SupermarketDelay(loads, &fast, 1, sm, tally, rec)
						now += clock.Exp() * (1 / rate)
						seen := h.seenAt(now-T, n)
						literalStaleEvent(&slow, lp, want, seen)
						h.times, h.states = append(h.times, now), append(h.states, slices.Clone(want))
						if rec.Now != now {
							t.Fatalf("event %d: time %v, the literal clock %v", e, rec.Now, now)
						}
						for i := range n {
							if int(loads[i]) != want[i] {
								t.Fatalf("event %d: bin %d holds %d, the literal loop %d", e, i, loads[i], want[i])
							}
						}
						// After an arrival the board is the state at now − T (before
						// this event's change); departures read none and leave it.
						if arrived := tally.Arrivals > arrivals; arrived && !slices.EqualFunc(rec.Board, seen, func(x uint32, y int) bool { return int(x) == y }) {
							t.Fatalf("event %d: board %v, the state at now − T %v", e, rec.Board, seen)
						}
						if S := atLeast(want); !slices.Equal(S, tally.S) {
							t.Fatalf("event %d: tally %v, recount %v", e, tally.S, S)
						}
						sums = addAtLeast(sums, atLeast(want))
					}
					checkSums(t, tally, sums)
					if fast != slow {
						t.Error("the event streams ended apart")
					}
				})
			}
		}
	}
}

func TestSupermarketIndividualIsLiteral(t *testing.T) {
	for _, lp := range literalCases() {
		for _, n := range []int{1, 3, 40} {
			for _, T := range []float64{0.01, 0.3, 2, 50} {
				t.Run(fmt.Sprintf("%+v/n=%d/T=%g", lp, n, T), func(t *testing.T) {
					sm, _ := NewSupermarket(lp.lambda, lp.pl)
					fast, slow := NewPCG32(4, 5), NewPCG32(4, 5)
					f, err := NewRefresher(lp.lambda, T, NewPCG32(8, 9))
					if err != nil {
						t.Fatal(err)
					}
					refresh := NewPCG32(8, 9)
					coin, _ := NewBernoulli(1 / (1 + (1+lp.lambda)*T))
					loads, board := make([]uint32, n), make([]uint32, n)
					want, seen := make([]int, n), make([]int, n)
					tally := NewTally(uint64(n))
					for e := range 1500 {
						SupermarketIndividual(loads, board, &fast, 1, sm, tally, f)
						for coin.Flip(&refresh) {
							i := refresh.Bounded(uint32(n))
							seen[i] = want[i]
						}
						literalStaleEvent(&slow, lp, want, seen)
						for i := range n {
							if int(loads[i]) != want[i] || int(board[i]) != seen[i] {
								t.Fatalf("event %d: bin %d holds %d seen as %d, the literal loop %d seen as %d", e, i, loads[i], board[i], want[i], seen[i])
							}
						}
						if S := atLeast(want); !slices.Equal(S, tally.S) {
							t.Fatalf("event %d: tally %v, recount %v", e, tally.S, S)
						}
					}
					if fast != slow || f.Rng != refresh {
						t.Error("the streams ended apart")
					}
				})
			}
		}
	}
}

// The refresh coin's probability: the mean refreshes per event is
// 1/((1+λ)T) (Geometric); 10^6 events at T = 0.5, λ = 0.9, so 1.0526 a
// event, within 4 standard errors (the Geometric's variance q/(1−q)²).
func TestRefresherRate(t *testing.T) {
	const lambda, T, events = 0.9, 0.5, 1000000
	f, _ := NewRefresher(lambda, T, NewPCG32(3, 3))
	q := 1 / (1 + (1+lambda)*T)
	total := 0
	for range events {
		for f.coin.Flip(&f.Rng) {
			total++
		}
	}
	mean, want := float64(total)/events, 1/((1+lambda)*T)
	se := (q / ((1 - q) * (1 - q)) / events)
	if d := mean - want; d*d > 16*se {
		t.Errorf("%.5f refreshes an event, want %.5f", mean, want)
	}
}

// Benchmarks at n = 10^4, JSQ(2), λ = 0.9, T = 1: the fast loops beside
// naive ones written as the definitions read, with the generator's public
// draws — the delay's window a slice of change records (appended, dropped
// from the front into the board), the individual updates a heap of every
// bin's next refresh time (container/heap), due refreshes applied before
// each event — and, for the delay, one reading each old load as the
// current load less the window's changes to it, by a scan of the window
// (BenchmarkStaleDelayNaiveScan); the …NaiveFirst pair below are the loops
// one writes first. events/cpu-s (CPU time of the process) is the figure
// to compare on a shared machine. Measured here (2 shared cores, medians
// of 4 interleaved rounds of 600 ops, events per CPU-second): delay fast
// 45 M, same-record naive 14 M (3.3×), first-written 10 M (4.4×), scanning
// 0.27 M (wall; ~150×); individual fast 55 M, heap 10.4 M (5.3×),
// first-written 14.7 M (3.7×).
func benchStale(b *testing.B, run func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally)) {
	const n = 10000
	sm, _ := NewSupermarket(0.9, Placement{D: 2, Beta: 1})
	r := NewPCG32(1, 2)
	loads := make([]uint32, n)
	t := NewTally(n)
	cpu := cpuSeconds()
	for b.Loop() {
		run(loads, &r, sm, t)
	}
	reportCPU(b, cpu)
}

// cpuSeconds is the process's CPU time (user + system): on a shared
// machine it counts this process's work, not the waits.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9
}

// reportCPU reports events per wall second and per CPU second since cpu
// (10^4 events an op).
func reportCPU(b *testing.B, cpu float64) {
	b.ReportMetric(float64(b.N)*1e4/b.Elapsed().Seconds(), "events/s")
	if c := cpuSeconds() - cpu; c > 0 {
		b.ReportMetric(float64(b.N)*1e4/c, "events/cpu-s")
	}
}

func BenchmarkStaleDelayFast(b *testing.B) {
	rec := NewDelayRecord[uint32](10000, 1, 1.9e4, NewPCG32(3, 4), 2e4)
	benchStale(b, func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally) {
		SupermarketDelay(loads, r, 1e4, sm, t, rec)
	})
}

// naiveEvent is one event deciding on seen, by the public draws; change
// reports the bin changed and how (0: none).
func naiveEvent(loads, seen []uint32, r *PCG32, sm *Supermarket, t *Tally) (uint32, int) {
	n := uint32(len(loads))
	defer func() { t.Event++ }()
	if !sm.arrive.Flip(r) {
		if i := r.Bounded(n); loads[i] > 0 {
			t.down(uint64(loads[i]))
			loads[i]--
			return i, -1
		}
		return 0, 0
	}
	x, y := r.Bounded(n), r.Bounded(n)
	if seen[y] < seen[x] {
		x = y
	}
	t.up(uint64(loads[x]))
	loads[x]++
	return x, 1
}

func BenchmarkStaleDelayNaive(b *testing.B) {
	type change struct {
		at float64
		b  uint32
		dl int
	}
	var window []change
	board := make([]uint32, 10000)
	clock := NewPCG32(3, 4)
	now := 0.0
	benchStale(b, func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally) {
		for range 10000 {
			now += clock.Exp() / 1.9e4
			for len(window) > 0 && window[0].at <= now-1 {
				board[window[0].b] = uint32(int(board[window[0].b]) + window[0].dl)
				window = window[1:]
			}
			if i, dl := naiveEvent(loads, board, r, sm, t); dl != 0 {
				window = append(window, change{now, i, dl})
			}
		}
	})
}

func BenchmarkStaleIndividualFast(b *testing.B) {
	f, _ := NewRefresher(0.9, 1, NewPCG32(3, 4))
	board := make([]uint32, 10000)
	benchStale(b, func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally) {
		SupermarketIndividual(loads, board, r, 1e4, sm, t, f)
	})
}

// refreshHeap orders the bins by their next refresh time.
type refreshHeap struct {
	at  []float64
	bin []uint32
}

func (h *refreshHeap) Len() int           { return len(h.at) }
func (h *refreshHeap) Less(i, j int) bool { return h.at[i] < h.at[j] }
func (h *refreshHeap) Swap(i, j int) {
	h.at[i], h.at[j] = h.at[j], h.at[i]
	h.bin[i], h.bin[j] = h.bin[j], h.bin[i]
}
func (h *refreshHeap) Push(x any) { panic("fixed size") }
func (h *refreshHeap) Pop() any   { panic("fixed size") }

func BenchmarkStaleIndividualNaive(b *testing.B) {
	const n = 10000
	clock := NewPCG32(3, 4)
	h := &refreshHeap{}
	for i := range n {
		h.at, h.bin = append(h.at, clock.Exp()), append(h.bin, uint32(i))
	}
	heap.Init(h)
	board := make([]uint32, n)
	now := 0.0
	benchStale(b, func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally) {
		for range 10000 {
			now += clock.Exp() / 1.9e4
			for h.at[0] <= now {
				board[h.bin[0]] = loads[h.bin[0]]
				h.at[0] += clock.Exp()
				heap.Fix(h, 0)
			}
			naiveEvent(loads, board, r, sm, t)
		}
	})
}

// naiveDelayScan reads a sample's old load as the brief of the model reads
// it, current load less the window's changes to that bin, found by a scan
// of the window (no board kept).
func BenchmarkStaleDelayNaiveScan(b *testing.B) {
	type change struct {
		at float64
		b  uint32
		dl int
	}
	var window []change
	clock := NewPCG32(3, 4)
	now := 0.0
	seen := make([]uint32, 2)
	benchStale(b, func(loads []uint32, r *PCG32, sm *Supermarket, t *Tally) {
		n := uint32(len(loads))
		old := func(i uint32) uint32 {
			l := int(loads[i])
			for _, c := range window {
				if c.b == i {
					l -= c.dl
				}
			}
			return uint32(l)
		}
		for range 10000 {
			now += clock.Exp() / 1.9e4
			for len(window) > 0 && window[0].at <= now-1 {
				window = window[1:]
			}
			if !sm.arrive.Flip(r) {
				if i := r.Bounded(n); loads[i] > 0 {
					t.down(uint64(loads[i]))
					loads[i]--
					window = append(window, change{now, i, -1})
				}
				t.Event++
				continue
			}
			x, y := r.Bounded(n), r.Bounded(n)
			seen[0], seen[1] = old(x), old(y)
			if seen[1] < seen[0] {
				x = y
			}
			t.up(uint64(loads[x]))
			loads[x]++
			window = append(window, change{now, x, 1})
			t.Event++
		}
	})
}

// The naive loops one writes first, as bench/dynamic_test.go's
// naiveSupermarket is written (the project's reference naive loop): []int
// loads, math/rand/v2's top-level generator, a count of bins per level kept
// per event and the time sums added over the levels at every event; the
// delay's window a slice of changes, the individual updates' refreshes a
// Geometric run of coins before each event.
func naiveStaleFirst(b *testing.B, before func(loads []int, now float64), seen func(i int) int, changed func(i, dl int, now float64)) {
	const n, lambda = 10000, 0.9
	loads := make([]int, n)
	atLeast := []int{n, 0}
	var sums []float64
	now := 0.0
	cpu := cpuSeconds()
	for b.Loop() {
		for range 10000 {
			now += rand.ExpFloat64() / (n * (1 + lambda))
			before(loads, now)
			if rand.Float64() < lambda/(1+lambda) {
				best := rand.IntN(n)
				if j := rand.IntN(n); seen(j) < seen(best) {
					best = j
				}
				loads[best]++
				if loads[best] == len(atLeast)-1 {
					atLeast = append(atLeast, 0)
				}
				atLeast[loads[best]]++
				changed(best, 1, now)
			} else if i := rand.IntN(n); loads[i] > 0 {
				atLeast[loads[i]]--
				loads[i]--
				changed(i, -1, now)
			}
			for k := 1; k < len(atLeast); k++ {
				if k > len(sums) {
					sums = append(sums, 0)
				}
				sums[k-1] += float64(atLeast[k])
			}
		}
	}
	reportCPU(b, cpu)
}

func BenchmarkStaleDelayNaiveFirst(b *testing.B) {
	type change struct {
		at    float64
		b, dl int
	}
	var window []change
	board := make([]int, 10000)
	naiveStaleFirst(b, func(_ []int, now float64) {
		for len(window) > 0 && window[0].at <= now-1 {
			board[window[0].b] += window[0].dl
			window = window[1:]
		}
	}, func(i int) int { return board[i] }, func(i, dl int, now float64) { window = append(window, change{now, i, dl}) })
}

func BenchmarkStaleIndividualNaiveFirst(b *testing.B) {
	board := make([]int, 10000)
	q := 1 / (1 + 1.9*1.0)
	naiveStaleFirst(b, func(loads []int, _ float64) {
		for rand.Float64() < q {
			i := rand.IntN(len(loads))
			board[i] = loads[i]
		}
	}, func(i int) int { return board[i] }, func(int, int, float64) {})
}
