package concurrency

import "sort"

// Dist is a measured distribution of non-negative integers: a staleness,
// in balls.
type Dist struct {
	Count     uint64      `json:"count"`
	Mean      float64     `json:"mean"`
	P50       uint64      `json:"p50"`
	P90       uint64      `json:"p90"`
	P99       uint64      `json:"p99"`
	P999      uint64      `json:"p999"`
	Max       uint64      `json:"max"`
	Histogram [][2]uint64 `json:"histogram"` // [[value, count], ...], ascending
}

// tally counts values by value in a slice that grows on demand: a worker's
// own, so the measuring path shares nothing.
type tally []uint64

func (t *tally) add(v uint64) {
	if v >= uint64(len(*t)) {
		grown := make(tally, max(v+1, 2*uint64(len(*t))))
		copy(grown, *t)
		*t = grown
	}
	(*t)[v]++
}

// merge adds the tallies up into a Dist.
func merge(ts []tally) Dist {
	var sum tally
	for _, t := range ts {
		for v, c := range t {
			if c > 0 {
				for uint64(len(sum)) <= uint64(v) {
					sum = append(sum, 0)
				}
				sum[v] += c
			}
		}
	}
	var d Dist
	total := 0.0
	for v, c := range sum {
		if c > 0 {
			d.Histogram = append(d.Histogram, [2]uint64{uint64(v), c})
			d.Count += c
			total += float64(v) * float64(c)
			d.Max = uint64(v)
		}
	}
	if d.Count == 0 {
		return d
	}
	d.Mean = total / float64(d.Count)
	quantile := func(q float64) uint64 {
		need := uint64(q * float64(d.Count))
		i := sort.Search(len(d.Histogram), func(i int) bool {
			acc := uint64(0)
			for _, h := range d.Histogram[:i+1] {
				acc += h[1]
			}
			return acc > need
		})
		return d.Histogram[min(i, len(d.Histogram)-1)][0]
	}
	d.P50, d.P90, d.P99, d.P999 = quantile(0.5), quantile(0.9), quantile(0.99), quantile(0.999)
	return d
}

// Weights returns the histogram as dense weights by value, for an alias
// table of ages.
func (d Dist) Weights() []uint64 {
	if d.Count == 0 {
		return nil
	}
	w := make([]uint64, d.Max+1)
	for _, h := range d.Histogram {
		w[h[0]] = h[1]
	}
	return w
}

// lawOf is the Dist of a sequence of ages.
func lawOf(ages []uint32) Dist {
	var t tally
	for _, a := range ages {
		t.add(uint64(a))
	}
	return merge([]tally{t})
}
