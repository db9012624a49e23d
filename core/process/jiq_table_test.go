package process_test

import "github.com/balloc/balloc/internal/proctable"

func init() {
	table = append(table,
		proctable.Row{Process: "jiq", Slow: slowJIQ, Law: lawJIQ, N: 3, M: 6},
		proctable.Row{Process: "jiq", Slow: slowJIQ, Law: lawJIQ, N: 4, M: 5},
	)
}

// slowJIQ: the idle bins (load 0) listed in index order; while there is
// one, the j-th of them for a uniform j, else a uniform bin.
func slowJIQ(loads []uint64, tr proctable.Trial, _ uint64) {
	var idle []uint32
	for i, v := range loads {
		if v == 0 {
			idle = append(idle, uint32(i))
		}
	}
	if len(idle) > 0 {
		loads[idle[tr.Choices.Bounded(uint32(len(idle)))]]++
		return
	}
	loads[tr.Choices.Bounded(uint32(len(loads)))]++
}

// lawJIQ: uniform over the idle bins while there is one, else uniform.
func lawJIQ(loads []int, _ int) []float64 {
	p := make([]float64, len(loads))
	idle := 0
	for _, v := range loads {
		if v == 0 {
			idle++
		}
	}
	for i, v := range loads {
		switch {
		case idle == 0:
			p[i] = 1 / float64(len(loads))
		case v == 0:
			p[i] = 1 / float64(idle)
		}
	}
	return p
}
