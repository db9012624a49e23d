package kernels

import (
	"math"
	"slices"
	"testing"
)

// aliasLaw is the exact law of an alias table's draw: each column is
// picked with probability 1/len, then kept with probability prob/2^32 (1
// when keep) or sent to its alias.
func aliasLaw(a *Alias) []float64 {
	n := len(a.prob)
	law := make([]float64, n)
	for i := range n {
		p := 1.0
		if !a.keep[i] {
			p = float64(a.prob[i]) / (1 << 32)
		}
		law[i] += p / float64(n)
		law[a.alias[i]] += (1 - p) / float64(n)
	}
	return law
}

// agesLaw is the exact law of Ages.Draw, by age.
func agesLaw(a *Ages) map[uint32]float64 {
	law := map[uint32]float64{}
	for k, p := range aliasLaw(a.alias) {
		age := uint32(k)
		if a.age != nil {
			age = a.age[k]
		}
		law[age] += p
	}
	return law
}

// The sparse table (τ past DenseAges) draws every age with the law the
// dense table over {0, …, τ} has, both within the tables' resolution of
// count/total; zero-count ages are never drawn.
func TestSparseAgesLawEqualsDense(t *testing.T) {
	age := []uint32{0, 1, 7, 1000, DenseAges, DenseAges + 3, 1<<21 + 1}
	count := []uint64{5, 1, 9, 2, 6, 1, 4}
	tau := uint64(1<<21 + 1)
	total := 0.0
	for _, c := range count {
		total += float64(c)
	}
	sparse, err := NewAges(age, count, tau)
	if err != nil {
		t.Fatal(err)
	}
	if sparse.age == nil || len(sparse.alias.prob) != len(age) {
		t.Fatalf("τ = %d: want a table over the %d listed ages", tau, len(age))
	}
	dense := make([]uint64, tau+1)
	for k, a := range age {
		dense[a] = count[k]
	}
	da, err := NewAlias(dense)
	if err != nil {
		t.Fatal(err)
	}
	sl, dl := agesLaw(sparse), aliasLaw(da)
	for k, a := range age {
		want := float64(count[k]) / total
		if math.Abs(sl[a]-want) > 1e-9 || math.Abs(dl[a]-want) > 1e-9 {
			t.Errorf("age %d: sparse %.12f, dense %.12f, want %.12f", a, sl[a], dl[a], want)
		}
	}
	for a, p := range dl {
		if p > 0 && !slices.Contains(age, uint32(a)) {
			t.Errorf("dense table draws age %d, which has count 0", a)
		}
	}
	for a, p := range sl {
		if p > 0 && !slices.Contains(age, a) {
			t.Errorf("sparse table draws age %d, which has count 0", a)
		}
	}
	// Draws, seeded: only listed ages, each within 5 standard deviations
	// of its expected count.
	r := TrialStream(1, 0, LaneNoise)
	seen := map[uint32]int{}
	for range 100000 {
		seen[sparse.Draw(&r)]++
	}
	for a, c := range seen {
		i := slices.Index(age, a)
		if i < 0 {
			t.Fatalf("drew age %d, not listed", a)
		}
		want := 100000 * float64(count[i]) / total
		if math.Abs(float64(c)-want) > 5*math.Sqrt(want) {
			t.Errorf("age %d drawn %d times, want %.0f ± %.0f (5 sd)", a, c, want, 5*math.Sqrt(want))
		}
	}
}

// Below DenseAges the law is the dense table over {0, …, τ}, built as
// before from the same weights: the same table, so the same stream.
func TestDenseAgesAreTheOldTable(t *testing.T) {
	sparse, err := NewAges([]uint32{0, 2, 3, 6}, []uint64{3, 2, 1, 4}, 9)
	if err != nil {
		t.Fatal(err)
	}
	old, err := NewAlias([]uint64{3, 0, 2, 1, 0, 0, 4, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if sparse.age != nil || !slices.Equal(sparse.alias.prob, old.prob) || !slices.Equal(sparse.alias.alias, old.alias) || !slices.Equal(sparse.alias.keep, old.keep) {
		t.Error("a law of τ < DenseAges is not the dense table of its counts")
	}
}

// A ring of min(τ, m) slots gives the run a ring of τ gives, for each mode.
func TestDelayWindowSameRun(t *testing.T) {
	const n, m = 16, 3000
	ages, err := NewAges([]uint32{0, 9, 5000}, []uint64{1, 2, 3}, 5000)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []DelayMode{DelayFixed, DelayUniform, DelayAdversarial, DelayEmpirical} {
		var loads [2][]uint32
		for k, balls := range []uint64{math.MaxUint64, m} {
			l := make([]uint32, n)
			r, nz := TrialStream(3, 0, LaneChoices), TrialStream(3, 0, LaneNoise)
			d := NewDelay[uint32](n, 5000, mode, false, ages, balls)
			TauDelay(l, &r, &nz, m/2, d, 0)
			TauDelay(l, &r, &nz, m-m/2, d, 0)
			loads[k] = l
		}
		if !slices.Equal(loads[0], loads[1]) {
			t.Errorf("mode %d: a ring of %d slots changes the run", mode, m)
		}
	}
}
