package kernels

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// pcgBasicBounded is pcg32_boundedrand_r of pcg_basic.c (threshold and
// modulo, not Lemire's method): only the reference outputs use it.
func pcgBasicBounded(r *PCG32, bound uint32) uint32 {
	threshold := -bound % bound
	for {
		x := r.Uint32()
		if x >= threshold {
			return x % bound
		}
	}
}

// TestPCG32Reference reproduces the first two rounds that pcg32-demo prints
// for pcg32_srandom_r(&rng, 42u, 54u) (pcg-c-basic).
func TestPCG32Reference(t *testing.T) {
	rounds := []struct{ numbers, coins, rolls, cards string }{
		{
			"0xa15c02b7 0x7b47f409 0xba1d3330 0x83d2f293 0xbfa4784b 0xcbed606e",
			"HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT",
			"3 4 1 1 2 2 3 2 4 3 2 4 3 3 5 2 3 1 3 1 5 1 4 1 5 6 4 6 6 2 6 3 3",
			"Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs 2s 7h Kh 2d 6c Ah 4d Qh 9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h 7d 8s 9d 5h 8h Qc 7c Tc",
		},
		{
			"0x74ab93ad 0x1c1da000 0x494ff896 0x34462f2f 0xd308a3e5 0x0fa83bab",
			"HHHHHHHHHHTHHHTHTHTHTHTTTTHHTTTHHTHHTHTTHHTTTHHHHHHTHTTHTHTTTTTTT",
			"5 1 1 3 3 2 4 5 3 2 2 6 4 3 2 4 2 4 3 2 3 6 3 2 3 4 2 4 1 1 5 4 4",
			"", // not checked: the stored copy of the reference output was cut here
		},
	}
	r := NewPCG32(42, 54)
	if r.state != 1753877967969059832 || r.inc() != 109 {
		t.Fatalf("seeded state = (%d, %d), want (1753877967969059832, 109)", r.state, r.inc())
	}
	for k, want := range rounds {
		var nums []string
		for range 6 {
			nums = append(nums, fmt.Sprintf("%#08x", r.Uint32()))
		}
		// "Again": the demo steps back six and regenerates.
		back6 := uint64(6)
		r.Advance(-back6)
		for i := range 6 {
			if got := fmt.Sprintf("%#08x", r.Uint32()); got != nums[i] {
				t.Errorf("round %d: after Advance(-6) output %d = %s, want %s", k+1, i, got, nums[i])
			}
		}
		var coins strings.Builder
		for range 65 {
			coins.WriteByte("TH"[pcgBasicBounded(&r, 2)])
		}
		var rolls []string
		for range 33 {
			rolls = append(rolls, fmt.Sprint(pcgBasicBounded(&r, 6)+1))
		}
		cards := make([]int, 52)
		for i := range cards {
			cards[i] = i
		}
		for i := uint32(52); i > 1; i-- {
			c := pcgBasicBounded(&r, i)
			cards[c], cards[i-1] = cards[i-1], cards[c]
		}
		var deck []string
		for _, c := range cards {
			deck = append(deck, string([]byte{"A23456789TJQK"[c/4], "hcds"[c%4]}))
		}
		check := func(what, got, want string) {
			if want != "" && got != want {
				t.Errorf("round %d %s:\n got %s\nwant %s", k+1, what, got, want)
			}
		}
		check("32bit", strings.Join(nums, " "), want.numbers)
		check("coins", coins.String(), want.coins)
		check("rolls", strings.Join(rolls, " "), want.rolls)
		check("cards", strings.Join(deck, " "), want.cards)
	}
}

func TestPCG32ZeroValue(t *testing.T) {
	var z PCG32
	ref := PCG32{} // the default stream with state 0, stepped by hand
	s := uint64(0)
	for i := range 5 {
		want := pcgOutput(s)
		s = s*pcgMul + pcgDefaultInc
		if got := z.Uint32(); got != want {
			t.Fatalf("zero value output %d = %#x, want %#x", i, got, want)
		}
	}
	if ref.inc() != pcgDefaultInc {
		t.Fatalf("zero value increment = %d, want the reference default %d", ref.inc(), uint64(pcgDefaultInc))
	}
}

func TestPCG32AdvanceMatchesStepping(t *testing.T) {
	for _, delta := range []uint64{0, 1, 2, 7, 1000, 123457} {
		a := NewPCG32(7, 11)
		b := a
		for range delta {
			a.Uint32()
		}
		b.Advance(delta)
		if a != b {
			t.Errorf("Advance(%d) = %+v, stepping gives %+v", delta, b, a)
		}
	}
}

func TestPCG32MarshalRoundTrip(t *testing.T) {
	r := NewPCG32(3, 5)
	r.Uint32()
	data, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q PCG32
	if err := q.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if a, b := r.Uint32(), q.Uint32(); a != b {
			t.Fatalf("output %d after round trip: %#x, want %#x", i, b, a)
		}
	}
	for _, bad := range [][]byte{nil, data[:len(data)-1], append([]byte("pcg64:"), data[6:]...)} {
		if err := q.UnmarshalBinary(bad); err == nil {
			t.Errorf("UnmarshalBinary(%q) accepted a bad encoding", bad)
		}
	}
	even := append([]byte(nil), data...)
	even[len(even)-1] &^= 1
	if err := q.UnmarshalBinary(even); err == nil {
		t.Error("UnmarshalBinary accepted an even increment")
	}
}

func TestBoundedUniformChiSquare(t *testing.T) {
	const n, draws = 7, 700000
	r := NewPCG32(1, 2)
	var count [n]int
	for range draws {
		count[r.Bounded(n)]++
	}
	chi := 0.0
	e := float64(draws) / n
	for _, c := range count {
		chi += (float64(c) - e) * (float64(c) - e) / e
	}
	// χ²(6) exceeds 22.46 with probability 0.001.
	if chi > 22.46 {
		t.Errorf("Bounded(7) counts %v: χ² = %.2f > 22.46 (p < 0.001)", count, chi)
	}
}

func TestBounded64Range(t *testing.T) {
	r := NewPCG32(9, 9)
	for _, n := range []uint64{1, 2, 3, 1 << 33, 1<<63 + 5, math.MaxUint64} {
		for range 1000 {
			if x := r.Bounded64(n); x >= n {
				t.Fatalf("Bounded64(%d) = %d", n, x)
			}
		}
	}
	// Mean of Bounded64(2^40+3)/n is 1/2 with standard error 1/sqrt(12·N).
	const N = 200000
	n := uint64(1)<<40 + 3
	sum := 0.0
	for range N {
		sum += float64(r.Bounded64(n)) / float64(n)
	}
	if z := (sum/N - 0.5) / math.Sqrt(1.0/12/N); math.Abs(z) > 4 {
		t.Errorf("Bounded64 mean z-score %.2f", z)
	}
}

func TestTrialStreamsDiffer(t *testing.T) {
	seen := map[uint32]string{}
	for seed := uint64(0); seed < 20; seed++ {
		for trial := uint64(0); trial < 20; trial++ {
			for lane := LaneChoices; lane <= LaneWeights; lane++ {
				r := TrialStream(seed, trial, lane)
				x := r.Uint32()
				key := fmt.Sprint(seed, "/", trial, "/", lane)
				if prev, ok := seen[x]; ok {
					t.Errorf("streams %s and %s start with the same output %#x", prev, key, x)
				}
				seen[x] = key
				if q := TrialStream(seed, trial, lane); q.Uint32() != x {
					t.Fatalf("TrialStream(%d, %d, %d) is not deterministic", seed, trial, lane)
				}
			}
		}
	}
}

func TestFloat64Range(t *testing.T) {
	r := NewPCG32(5, 6)
	const N = 100000
	sum := 0.0
	for range N {
		x := r.Float64()
		if x < 0 || x >= 1 {
			t.Fatalf("Float64() = %v", x)
		}
		sum += x
	}
	if z := (sum/N - 0.5) / math.Sqrt(1.0/12/N); math.Abs(z) > 4.5 {
		t.Errorf("Float64 mean z-score %.2f", z)
	}
}

func TestBounded2IsTwoDraws(t *testing.T) {
	a, b := NewPCG32(1, 2), NewPCG32(1, 2)
	for range 1000 {
		x, y := a.Bounded2(1000003)
		if x != b.Bounded(1000003) || y != b.Bounded(1000003) || a != b {
			t.Fatal("Bounded2 differs from two Bounded draws")
		}
	}
}
