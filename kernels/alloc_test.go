package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// rejections counts, for a stream, how many of the first `draws`
// Lemire draws from [0, n) take the slow path, so that the equality tests
// can prove they exercised it.
func rejections(seed uint64, n uint32, draws int) int {
	r := TrialStream(seed, 0, LaneChoices)
	c := 0
	for range draws {
		if uint32(uint64(r.Uint32())*uint64(n)) < n {
			c++
		}
	}
	return c
}

type allocCase struct {
	name  string
	n     int
	balls uint64
}

// n = 10^6 makes Lemire's rare branch frequent enough (≈ 2.3·10^-4 per
// draw) to be exercised hundreds of times; the small sizes make ties common.
// The fast suite throws m = n/20 at n = 10^6 (the long one 2n): about 20
// draws still take the rare branch in two-choice (testAgainstRef checks
// that some do; a boundedFast that never redraws fails every n = 10^6
// loop here), and every loop still crosses its staged blocks' edges (128
// balls) hundreds of times.
var allocCases = []allocCase{
	{"n=1", 1, 1000},
	{"n=2", 2, 5000},
	{"n=7", 7, 20000},
	{"n=1000", 1000, 200000},
	{"n=1e6", 1000000, 2000000},
}

// theAllocCases is allocCases, with m = n/20 at n = 10^6 under -short.
func theAllocCases() []allocCase {
	cs := slices.Clone(allocCases)
	if testing.Short() {
		cs[len(cs)-1].balls = 50000
	}
	return cs
}

// manyChoiceBalls caps the balls of the d = 128, 129 runs under -short:
// their point is the staged loop's block edge (a block holds 2·128 draws,
// so every ball or two crosses it), reached thousands of times in 5000
// balls; at n = 1000's 2·10^5 balls they were 44% of the test's time. The
// long suite runs every case's balls.
func manyChoiceBalls(balls uint64) uint64 {
	if testing.Short() {
		return min(balls, 5000)
	}
	return balls
}

func checkSame[L loadValue](t *testing.T, what string, fast, ref []L, fr, rr PCG32, fmax L) {
	t.Helper()
	if !slices.Equal(fast, ref) {
		t.Fatalf("%s: loads differ from the reference", what)
	}
	if fr != rr {
		t.Fatalf("%s: generator state %+v, reference %+v", what, fr, rr)
	}
	if m := maxOf(ref); fmax != m {
		t.Fatalf("%s: returned max %v, loads' max %v", what, fmax, m)
	}
}

func testAgainstRef[L Load](t *testing.T) {
	for ci, c := range theAllocCases() {
		seed := uint64(100 + ci)
		if c.n == 1000000 && rejections(seed, uint32(c.n), int(2*c.balls)) == 0 {
			t.Fatalf("%s: the stream never takes Lemire's slow path; pick another seed", c.name)
		}
		runBalls := func(name string, balls uint64, fast func([]L, *PCG32, uint64) L, ref func([]L, *PCG32, uint64)) {
			t.Run(fmt.Sprintf("%s/%s", name, c.name), func(t *testing.T) {
				fl, rl := make([]L, c.n), make([]L, c.n)
				fr, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
				// Two calls, so that a loop resumes correctly mid-run.
				half := balls / 3
				m := fast(fl, &fr, half)
				m = max(m, fast(fl, &fr, balls-half))
				ref(rl, &rr, balls)
				checkSame(t, name, fl, rl, fr, rr, m)
			})
		}
		run := func(name string, fast func([]L, *PCG32, uint64) L, ref func([]L, *PCG32, uint64)) {
			runBalls(name, c.balls, fast, ref)
		}
		run("one-choice", func(l []L, r *PCG32, k uint64) L { return OneChoice(l, r, k, maxOf(l)) }, refOneChoice[L])
		run("two-choice", func(l []L, r *PCG32, k uint64) L { return TwoChoice(l, r, k, maxOf(l)) },
			func(l []L, r *PCG32, k uint64) { refDChoice(l, r, k, 2) })
		for _, d := range []int{1, 2, 3, 5, 128, 129} {
			if d > 5 && c.n > 1000 {
				continue // the staged loop's block edge, on a cheap case
			}
			balls := c.balls
			if d > 5 {
				balls = manyChoiceBalls(balls)
			}
			runBalls(fmt.Sprintf("d-choice-%d", d), balls, func(l []L, r *PCG32, k uint64) L { return DChoice(l, r, k, d, maxOf(l)) },
				func(l []L, r *PCG32, k uint64) { refDChoice(l, r, k, d) })
		}
		for _, beta := range []float64{0, 0.3, 0.5, 0.999} {
			coin, err := NewBernoulli(beta)
			if err != nil {
				t.Fatal(err)
			}
			run(fmt.Sprintf("one-plus-beta-%v", beta),
				func(l []L, r *PCG32, k uint64) L { return OnePlusBeta(l, r, k, &coin, maxOf(l)) },
				func(l []L, r *PCG32, k uint64) { refOnePlusBeta(l, r, k, &coin) })
		}
		for _, d := range []int{1, 2, 3, 4, 5} {
			if c.n%d != 0 || c.n < d {
				continue
			}
			run(fmt.Sprintf("always-go-left-%d", d),
				func(l []L, r *PCG32, k uint64) L { return AlwaysGoLeft(l, r, k, d, maxOf(l)) },
				func(l []L, r *PCG32, k uint64) { refAlwaysGoLeft(l, r, k, d) })
		}
		avg := c.balls / uint64(c.n)
		for _, limit := range []uint64{0, avg, avg + 1, avg + 3, 1 << 40} {
			run(fmt.Sprintf("two-thinning-limit-%d", limit),
				func(l []L, r *PCG32, k uint64) L { return TwoThinning(l, r, k, limit, maxOf(l)) },
				func(l []L, r *PCG32, k uint64) { refTwoThinning(l, r, k, limit) })
		}
	}
}

// withStaging runs f with the staged loops forced on, with and without
// their prefetch, and forced off: each must match the reference, so the
// cache-size choices never change results (and a prefetch that wrote, or
// read past what it should, would show here or crash).
func withStaging(t *testing.T, f func(t *testing.T)) {
	saved, savedPrefetch := stagingAbove, prefetchAbove
	defer func() { stagingAbove, prefetchAbove = saved, savedPrefetch }()
	for _, mode := range []struct {
		name            string
		above, prefetch int
	}{{"staged", -1, math.MaxInt}, {"staged-prefetched", -1, -1}, {"interleaved", math.MaxInt, math.MaxInt}} {
		stagingAbove, prefetchAbove = mode.above, mode.prefetch
		t.Run(mode.name, f)
	}
}

func TestLoopsMatchReference32(t *testing.T) { withStaging(t, testAgainstRef[uint32]) }
func TestLoopsMatchReference64(t *testing.T) { withStaging(t, testAgainstRef[uint64]) }

func TestWeightedMatchReference(t *testing.T) { withStaging(t, testWeighted) }

func testWeighted(t *testing.T) {
	for ci, c := range theAllocCases() {
		for _, d := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("d=%d/%s", d, c.name), func(t *testing.T) {
				ws := TrialStream(uint64(ci), 0, LaneWeights)
				w := make([]float64, c.balls)
				FillExp(w, &ws, 0.5)
				fl, rl := make([]float64, c.n), make([]float64, c.n)
				fr, rr := TrialStream(uint64(ci), 0, LaneChoices), TrialStream(uint64(ci), 0, LaneChoices)
				var m float64
				if d == 1 {
					m = OneChoiceWeighted(fl, &fr, w[:c.balls/2], 0)
					m = OneChoiceWeighted(fl, &fr, w[c.balls/2:], m)
				} else {
					m = DChoiceWeighted(fl, &fr, w[:c.balls/2], d, 0)
					m = DChoiceWeighted(fl, &fr, w[c.balls/2:], d, m)
				}
				refWeighted(rl, &rr, w, d)
				checkSame(t, "weighted", fl, rl, fr, rr, m)
			})
		}
	}
}
