package result

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/balloc/balloc/kernels"
)

// Snapshot summarises a load vector at one moment.
type Snapshot struct {
	Balls     uint64  // balls thrown so far
	Average   float64 // total weight / n (balls/n for unit weights)
	MaxLoad   float64
	MinLoad   float64
	Gap       float64 // max − average
	Underload float64 // average − min
	Quadratic float64 // Σᵢ (xᵢ − average)²
	LogExp    float64 // ln Φ_α, Φ_α = Σᵢ exp(α(xᵢ − average))
	Histogram []Level // bins per load level, ascending; unit-weight loads only
}

// Level is one entry of the sparse load histogram.
type Level struct {
	Load  float64
	Count uint64
}

// MaxCountLevels bounds the counting array of a snapshot; loads spread over
// more levels are counted by sorting a copy.
const MaxCountLevels = 1 << 20

// MeasureUnit summarises integer loads that each weigh `scale`, in O(n):
// one pass for the minimum, one to count levels. maxLoad is the maximum the
// allocation loop tracked; it is checked, not trusted blindly, by the count.
func MeasureUnit[L kernels.Load](loads []L, balls uint64, scale, alpha float64, maxLoad L) Snapshot {
	minLoad := maxLoad
	for _, v := range loads {
		minLoad = min(minLoad, v)
	}
	var levels []Level
	if span := uint64(maxLoad - minLoad); span < MaxCountLevels {
		counts := make([]uint64, span+1)
		for _, v := range loads {
			counts[v-minLoad]++
		}
		for k, c := range counts {
			if c != 0 {
				levels = append(levels, Level{Load: float64(minLoad + L(k)), Count: c})
			}
		}
	} else {
		sorted := slices.Clone(loads)
		slices.Sort(sorted)
		for i := 0; i < len(sorted); {
			j := i
			for j < len(sorted) && sorted[j] == sorted[i] {
				j++
			}
			levels = append(levels, Level{Load: float64(sorted[i]), Count: uint64(j - i)})
			i = j
		}
	}
	if top := levels[len(levels)-1].Load; top != float64(maxLoad) {
		panic("core: the allocation loop's maximum disagrees with the loads")
	}
	n := float64(len(loads))
	avg := float64(balls) / n * scale
	for k := range levels {
		levels[k].Load *= scale
	}
	s := Summary(levels, avg, alpha)
	s.Balls = balls
	s.Histogram = levels
	return s
}

// Summary computes the order statistics and potentials of a histogram.
func Summary(levels []Level, avg, alpha float64) Snapshot {
	s := Snapshot{
		Average: avg,
		MinLoad: levels[0].Load,
		MaxLoad: levels[len(levels)-1].Load,
	}
	s.Gap = s.MaxLoad - avg
	s.Underload = avg - s.MinLoad
	// ln Σ c·e^{α(x−avg)} = top + ln Σ e^{ln c + α(x−avg) − top}.
	top := math.Inf(-1)
	for _, l := range levels {
		d := l.Load - avg
		s.Quadratic += float64(l.Count) * d * d
		top = max(top, math.Log(float64(l.Count))+alpha*d)
	}
	sum := 0.0
	for _, l := range levels {
		sum += math.Exp(math.Log(float64(l.Count)) + alpha*(l.Load-avg) - top)
	}
	s.LogExp = top + math.Log(sum)
	return s
}

// MeasureReal summarises real-valued loads (random weights) in O(n); the
// average is the total weight over n.
func MeasureReal(loads []float64, balls uint64, alpha float64) Snapshot {
	// Neumaier's compensated sum: the total is the average's only input.
	sum, comp := 0.0, 0.0
	lo, hi := loads[0], loads[0]
	for _, v := range loads {
		t := sum + v
		if math.Abs(sum) >= math.Abs(v) {
			comp += (sum - t) + v
		} else {
			comp += (v - t) + sum
		}
		sum = t
		lo, hi = min(lo, v), max(hi, v)
	}
	avg := (sum + comp) / float64(len(loads))
	s := Snapshot{Balls: balls, Average: avg, MinLoad: lo, MaxLoad: hi, Gap: hi - avg, Underload: avg - lo}
	top := alpha * (hi - avg)
	if alpha < 0 {
		top = alpha * (lo - avg)
	}
	e := 0.0
	for _, v := range loads {
		d := v - avg
		s.Quadratic += d * d
		e += math.Exp(alpha*d - top)
	}
	s.LogExp = top + math.Log(e)
	return s
}

// MeasureLoads summarises 32-bit unit loads (the concurrent engine's), in
// O(n); balls is the number thrown.
func MeasureLoads(loads []uint32, balls uint64, alpha float64) Snapshot {
	top := uint32(0)
	for _, v := range loads {
		top = max(top, v)
	}
	return MeasureUnit(loads, balls, 1, alpha, top)
}

// Potential is a potential as a Result reports it: a float64 that marshals
// exactly as encoding/json writes a float64, but null when it overflowed
// (±Inf or NaN, which JSON lacks): a quadratic potential of loads near
// 1e160 passes 1.8e308. null reads back as +Inf.
type Potential float64

// MarshalJSON writes x as encoding/json would, or null.
func (p Potential) MarshalJSON() ([]byte, error) {
	x := float64(p)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

// UnmarshalJSON reads null as +Inf.
func (p *Potential) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*p = Potential(math.Inf(1))
		return nil
	}
	var x float64
	err := json.Unmarshal(data, &x)
	*p = Potential(x)
	return err
}
