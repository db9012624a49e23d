package concurrency

import (
	"slices"
	"sort"
)

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

// tally counts values: those below tallyDense by value, in a slice that
// grows on demand, and larger ones as they come, in a list. A worker's own,
// so the measuring path shares nothing. Ages run to millions of balls when
// a worker is descheduled (sharded workers on fewer cores than workers:
// 8.8e6), and counted by value those took the measured run's time in
// growing and clearing slices (43% of a 4-worker sharded run on 2 cores,
// in memmove).
type tally struct {
	dense []uint64 // dense[v]: how many v
	big   []uint64 // each value ≥ tallyDense
}

// tallyDense is the values a tally counts by value.
const tallyDense = 1 << 16

func (t *tally) add(v uint64) {
	if v >= tallyDense {
		t.big = append(t.big, v)
		return
	}
	if v >= uint64(len(t.dense)) {
		grown := make([]uint64, min(max(v+1, 2*uint64(len(t.dense))), tallyDense))
		copy(grown, t.dense)
		t.dense = grown
	}
	t.dense[v]++
}

// merge adds the tallies up into a Dist.
func merge(ts []tally) Dist {
	var sum []uint64
	var big []uint64
	for _, t := range ts {
		if len(t.dense) > len(sum) {
			sum = append(sum, make([]uint64, len(t.dense)-len(sum))...)
		}
		for v, c := range t.dense {
			sum[v] += c
		}
		big = append(big, t.big...)
	}
	slices.Sort(big)
	var d Dist
	total := 0.0
	record := func(v, c uint64) {
		d.Histogram = append(d.Histogram, [2]uint64{v, c})
		d.Count += c
		total += float64(v) * float64(c)
		d.Max = v
	}
	for v, c := range sum {
		if c > 0 {
			record(uint64(v), c)
		}
	}
	for i := 0; i < len(big); {
		j := i + 1
		for j < len(big) && big[j] == big[i] {
			j++
		}
		record(big[i], uint64(j-i))
		i = j
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
