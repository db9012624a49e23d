package result

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/balloc/balloc/kernels"
)

// slowSnapshot computes every metric by its definition, bin by bin.
func slowSnapshot(loads []float64, avg, alpha float64) Snapshot {
	s := Snapshot{Average: avg, MinLoad: math.Inf(1), MaxLoad: math.Inf(-1)}
	phi := 0.0
	for _, x := range loads {
		s.MinLoad = min(s.MinLoad, x)
		s.MaxLoad = max(s.MaxLoad, x)
		s.Quadratic += (x - avg) * (x - avg)
		phi += math.Exp(alpha * (x - avg))
	}
	s.Gap, s.Underload, s.LogExp = s.MaxLoad-avg, avg-s.MinLoad, math.Log(phi)
	return s
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

func checkSnapshot(t *testing.T, what string, got, want Snapshot) {
	t.Helper()
	for _, f := range []struct {
		name string
		a, b float64
	}{
		{"average", got.Average, want.Average}, {"max", got.MaxLoad, want.MaxLoad}, {"min", got.MinLoad, want.MinLoad},
		{"gap", got.Gap, want.Gap}, {"underload", got.Underload, want.Underload},
		{"quadratic", got.Quadratic, want.Quadratic}, {"log exp", got.LogExp, want.LogExp},
	} {
		if !close(f.a, f.b) {
			t.Errorf("%s: %s = %v, by definition %v", what, f.name, f.a, f.b)
		}
	}
}

func TestMeasureUnitMatchesDefinition(t *testing.T) {
	r := kernels.TrialStream(1, 0, kernels.LaneChoices)
	for _, c := range []struct {
		n, balls int
		scale    float64
		spread   uint32
	}{
		{1, 5, 1, 1}, {10, 37, 1, 5}, {1000, 123456, 0.5, 40},
		{50, 3 << 20, 1, 1 << 22}, // wider than the counting array: the sorting path
	} {
		loads := make([]uint32, c.n)
		sum := uint64(0)
		for i := range loads {
			loads[i] = r.Bounded(c.spread)
			sum += uint64(loads[i])
		}
		// The average is defined by the balls thrown; make the loads add up.
		loads[0] += uint32(uint64(c.balls) - min(sum, uint64(c.balls)))
		sum = 0
		fl := make([]float64, c.n)
		for i, v := range loads {
			sum += uint64(v)
			fl[i] = float64(v) * c.scale
		}
		for _, alpha := range []float64{1, 0.1, -2} {
			got := MeasureUnit(loads, sum, c.scale, alpha, slices.Max(loads))
			want := slowSnapshot(fl, float64(sum)/float64(c.n)*c.scale, alpha)
			checkSnapshot(t, "unit", got, want)
			total := uint64(0)
			for k, l := range got.Histogram {
				total += l.Count
				if k > 0 && !(l.Load > got.Histogram[k-1].Load) {
					t.Fatalf("histogram not strictly ascending at %d", k)
				}
			}
			if total != uint64(c.n) {
				t.Errorf("histogram counts %d bins, want %d", total, c.n)
			}
		}
	}
}

func TestMeasureRealMatchesDefinition(t *testing.T) {
	r := kernels.TrialStream(2, 0, kernels.LaneChoices)
	loads := make([]float64, 777)
	for i := range loads {
		loads[i] = r.Exp() * 30
	}
	sum := 0.0
	for _, v := range loads {
		sum += v
	}
	for _, alpha := range []float64{0.5, -0.5} {
		checkSnapshot(t, "real", MeasureReal(loads, 0, alpha), slowSnapshot(loads, sum/777, alpha))
	}
}

// Φ_α overflows float64 long before ln Φ_α does: the result carries the
// logarithm, and the potential itself marshals as null.
func TestExpPotentialOverflow(t *testing.T) {
	loads := []uint32{0, 2000}
	s := MeasureUnit(loads, 2000, 1, 1, 2000)
	if !close(s.LogExp, 1000+math.Log1p(math.Exp(-2000))) {
		t.Errorf("ln Φ = %v, want 1000", s.LogExp)
	}
	var r Result
	r.Fill(s, 1)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["exp_potential"] != nil {
		t.Errorf("exp_potential = %v (err %v), want null", back["exp_potential"], err)
	}
}

func TestHistogramJSONRoundTrip(t *testing.T) {
	h := Histogram{{Load: 3, Count: 10}, {Load: 4.5, Count: 1 << 40}}
	b, _ := json.Marshal(h)
	if string(b) != "[[3,10],[4.5,1099511627776]]" {
		t.Errorf("histogram JSON %s", b)
	}
	var back Histogram
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, h) {
		t.Errorf("round trip gave %v, %v", back, err)
	}
}
