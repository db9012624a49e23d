package kernels

import (
	"math"
	"math/big"
	"testing"
)

func TestBernoulliExpansionIsExact(t *testing.T) {
	for _, p := range []float64{0, 0.5, 0.1, 1.0 / 3, 0.999999, math.SmallestNonzeroFloat64, 1 - 0x1p-53, 0x1p-40} {
		b, err := NewBernoulli(p)
		if err != nil {
			t.Fatal(err)
		}
		// Rebuild p exactly from the words.
		sum := new(big.Float).SetPrec(4096)
		scale := new(big.Float).SetPrec(4096).SetFloat64(0x1p-32)
		sum.Add(sum, new(big.Float).Mul(scale, new(big.Float).SetUint64(uint64(b.hi))))
		for _, w := range b.tail {
			scale.Mul(scale, new(big.Float).SetFloat64(0x1p-32))
			sum.Add(sum, new(big.Float).Mul(scale, new(big.Float).SetUint64(uint64(w))))
		}
		if sum.Cmp(new(big.Float).SetFloat64(p)) != 0 {
			t.Errorf("p = %g: expansion sums to %s", p, sum.Text('g', 30))
		}
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := NewBernoulli(bad); err == nil {
			t.Errorf("NewBernoulli(%v) accepted", bad)
		}
	}
}

// TestBernoulliTieGoesToTail builds p whose first word equals the stream's
// next output, so the first word ties and the second decides: the coin must
// succeed exactly when U's second word is below p's.
func TestBernoulliTieGoesToTail(t *testing.T) {
	checked := 0
	for trial := range uint64(3000) {
		r := TrialStream(7, trial, LaneChoices)
		peek := r
		first, second := peek.Uint32(), peek.Uint32()
		up := trial%2 == 0 // p's second word above U's, else at or below
		// p = first·2^-32 + w2·2^-64 with w2's low 11 bits zero fits in a
		// float64's 53 bits.
		w2 := second &^ 0x7ff
		if up {
			if second >= math.MaxUint32-0x7ff {
				continue
			}
			w2 = (second | 0x7ff) + 1
		}
		p := (float64(first) + float64(w2)*0x1p-32) * 0x1p-32
		b, err := NewBernoulli(p)
		if err != nil || b.hi != first || (w2 != 0 && (len(b.tail) == 0 || b.tail[0] != w2)) {
			t.Fatalf("trial %d: p = %v did not expand to words %#x %#x", trial, p, first, w2)
		}
		checked++
		if got := b.Flip(&r); got != up {
			t.Fatalf("trial %d: Flip = %v, but U's second word %#x vs p's %#x (then zeros) says %v", trial, got, second, w2, up)
		}
	}
	t.Logf("%d tie cases checked", checked)
	if checked < 2900 {
		t.Fatalf("only %d tie cases were representable; the test checks nothing", checked)
	}
}

func TestBernoulliFrequency(t *testing.T) {
	r := TrialStream(3, 0, LaneChoices)
	for _, p := range []float64{0.001, 0.25, 0.5, 0.7071} {
		b, _ := NewBernoulli(p)
		const N = 400000
		k := 0
		for range N {
			if b.Flip(&r) {
				k++
			}
		}
		z := (float64(k) - N*p) / math.Sqrt(N*p*(1-p))
		if math.Abs(z) > 4.5 {
			t.Errorf("p = %v: %d successes in %d, z = %.2f", p, k, N, z)
		}
	}
}

// flipFloat is flipFloatFrom drawing its first output itself, as Bernoulli
// does.
func flipFloat(s, inc uint64, p float64) (uint64, bool) {
	var c uint32
	s, c = step(s, inc)
	return flipFloatFrom(c, s, inc, p)
}

// flipFloatFrom is the same coin as Bernoulli for the same p: same outcome,
// same outputs consumed, on ordinary draws and on forced first-word ties.
func TestFlipFloatMatchesBernoulli(t *testing.T) {
	ps := []float64{0, 0.5, 0.1, 1.0 / 3, 0.999999, math.SmallestNonzeroFloat64, 1 - 0x1p-53, 0x1p-40, 0.25 + 0x1p-60}
	for trial := range uint64(4000) {
		r := TrialStream(8, trial, LaneChoices)
		peek := r
		first := peek.Uint32()
		// Every fourth trial, a p whose first word ties the next output.
		p := ps[trial%uint64(len(ps))]
		if trial%4 == 0 {
			p = (float64(first) + 0.5) * 0x1p-32
		}
		b, err := NewBernoulli(p)
		if err != nil {
			t.Fatal(err)
		}
		r2 := r
		want := b.Flip(&r)
		s, got := flipFloat(r2.state, r2.inc(), p)
		if got != want || s != r.state {
			t.Fatalf("p = %v: flipFloat = %v (state %x), Bernoulli = %v (state %x)", p, got, s, want, r.state)
		}
	}
	r := TrialStream(9, 0, LaneChoices)
	one, _ := NewBernoulli(1)
	for range 100 {
		q := r
		if s, ok := flipFloat(r.state, r.inc(), 1); !ok || s == r.state {
			t.Fatal("flipFloat(1) failed or consumed nothing")
		}
		if !one.Flip(&q) || q.state != (r.state*pcgMul+r.inc()) {
			t.Fatal("Bernoulli(1) failed or consumed other than one output")
		}
		r.Uint32()
	}
}
