package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

// Crossover is summarize --crossover KEY=A,B: where, as n grows, the gap of
// the points with KEY = A stops being below (or above) that of the points
// with KEY = B. KEY is a parameter (strategy=greedy,haar) or "process".
type Crossover struct {
	key, a, b string
	left      []string // pairs left out for want of trials, for the output
}

// ParseCrossover reads KEY=A,B, the value of summarize --crossover.
func ParseCrossover(v string) (*Crossover, error) {
	key, vals, ok := strings.Cut(v, "=")
	a, b, ok2 := strings.Cut(vals, ",")
	if !ok || !ok2 || key == "" || a == "" || b == "" || a == b || strings.Contains(b, ",") {
		return nil, argError("crossover", strconv.Quote(v), "want KEY=A,B, two values of one parameter (strategy=greedy,haar) or of process")
	}
	return &Crossover{key: strings.TrimSpace(key), a: strings.TrimSpace(a), b: strings.TrimSpace(b)}, nil
}

// side is one grid point's figures in a crossover pair.
type side struct {
	mean, se float64
	trials   int
}

// crossPair is the two points at one n: the same bins and the same values of
// every parameter but KEY (their balls may differ: each may run to its own
// stationarity).
type crossPair struct {
	n      uint64
	other  string // the parameters they share, for messages
	pa, pb side
}

func (c *Crossover) value(s Summary) (string, bool) {
	if c.key == "process" {
		return s.Point.Process, true
	}
	v, ok := s.Point.Params[c.key]
	return fmt.Sprint(v), ok
}

// pairs matches the A and B points, one pair per n, ascending in n.
func (c *Crossover) pairs(sums []Summary) ([]crossPair, error) {
	type half struct{ a, b *Summary }
	halves := map[string]*half{}
	var order []string
	// A pair shares n and the parameters both sides take (KEY apart): one
	// side may take a parameter the other does not (haar's haar-scale, or
	// two-choice's d beside one-choice), and that one is not matched on.
	names := map[string]int{} // 1: an A point takes it, 2: a B point, 3: both
	for _, s := range sums {
		if v, ok := c.value(s); ok && (v == c.a || v == c.b) {
			bit := 2
			if v == c.a {
				bit = 1
			}
			for k := range s.Point.Params {
				names[k] |= bit
			}
		}
	}
	for i := range sums {
		s := &sums[i]
		v, ok := c.value(*s)
		if !ok || (v != c.a && v != c.b) {
			continue
		}
		shared := map[string]any{}
		for k, x := range s.Point.Params {
			if names[k] == 3 && k != c.key {
				shared[k] = x
			}
		}
		k := fmt.Sprintf("%s n=%d", sweep.ParamsText(shared), s.Point.Bins)
		if c.key != "process" {
			k = s.Point.Process + " " + k
		}
		h := halves[k]
		if h == nil {
			h = &half{}
			halves[k] = h
			order = append(order, k)
		}
		if v == c.a {
			h.a = s
		} else {
			h.b = s
		}
	}
	var out []crossPair
	for _, k := range order {
		h := halves[k]
		if h.a == nil || h.b == nil {
			continue
		}
		if h.a.Trials < 2 || h.b.Trials < 2 { // a sweep still running: left out, and said so
			c.left = append(c.left, fmt.Sprintf("n = %s (%d and %d trials)", units.FormatCount(h.a.Point.Bins), h.a.Trials, h.b.Trials))
			continue
		}
		sd := func(s *Summary) side {
			return side{mean: s.Mean, se: s.SD / math.Sqrt(float64(s.Trials)), trials: s.Trials}
		}
		out = append(out, crossPair{n: h.a.Point.Bins, other: strings.TrimSpace(k), pa: sd(h.a), pb: sd(h.b)})
	}
	slices.SortStableFunc(out, func(x, y crossPair) int { return cmp.Compare(x.n, y.n) })
	for i := 1; i < len(out); i++ {
		if out[i].n == out[i-1].n {
			return nil, argError("crossover", "", "two pairs at n = %d (%s; %s): it needs one pair per n, so sweep one family per folder", out[i].n, out[i-1].other, out[i].other)
		}
	}
	if len(out) < 2 {
		left := ""
		if len(c.left) > 0 {
			left = " (below 2 trials: " + strings.Join(c.left, ", ") + ")"
		}
		return nil, argError("crossover", c.key+"="+c.a+","+c.b, "%d n with both values and 2 trials each; want at least 2%s", len(out), left)
	}
	return out, nil
}

// crossing is a change of sign of D = gap(A) − gap(B) between two adjacent
// n, with D taken linear in log n between adjacent n: at = where the line
// is 0; [lo, hi] = the stretch around it where 0 lies within the 95%
// interval of the interpolated D (Student t, Welch–Satterthwaite degrees of
// freedom, at each point), which may reach into the neighbouring segments;
// loOpen/hiOpen when it reaches the first or last measured n, so the
// crossing may lie beyond it.
type crossing struct {
	from, to       uint64
	at, lo, hi     float64
	loOpen, hiOpen bool
}

// crossings finds every change of sign of D between adjacent pairs.
func crossings(ps []crossPair) []crossing {
	d := func(p crossPair) float64 { return p.pa.mean - p.pb.mean }
	logN := func(j int) float64 { return math.Log(float64(ps[j].n)) }
	// A position on the polyline: segment j (from ps[j−1] to ps[j]) and w
	// in [0, 1] along it.
	nAt := func(j int, w float64) float64 { return math.Exp(logN(j-1) + w*(logN(j)-logN(j-1))) }
	within := func(j int, w float64) bool {
		p, q := ps[j-1], ps[j]
		return math.Abs((1-w)*d(p)+w*d(q)) <= halfWidth(w, p, q)
	}
	const steps = 10000 // per segment
	var out []crossing
	for i := 1; i < len(ps); i++ {
		dp, dq := d(ps[i-1]), d(ps[i])
		if dp == 0 || dq == 0 || (dp < 0) == (dq < 0) {
			continue
		}
		w0 := dp / (dp - dq)
		c := crossing{from: ps[i-1].n, to: ps[i].n, at: nAt(i, w0), lo: nAt(i, w0), hi: nAt(i, w0)}
		// Walk down from the crossing while 0 stays within the interval.
		for j, k := i, int(math.Floor(w0*steps)); ; k-- {
			if k < 0 {
				if j == 1 {
					c.loOpen = true
					break
				}
				j, k = j-1, steps-1
			}
			w := float64(k) / steps
			if !within(j, w) {
				break
			}
			c.lo = nAt(j, w)
		}
		for j, k := i, int(math.Ceil(w0*steps)); ; k++ {
			if k > steps {
				if j == len(ps)-1 {
					c.hiOpen = true
					break
				}
				j, k = j+1, 1
			}
			w := float64(k) / steps
			if !within(j, w) {
				break
			}
			c.hi = nAt(j, w)
		}
		out = append(out, c)
	}
	return out
}

// halfWidth is the 95% half-width of (1−w)·D_p + w·D_q, each D the
// difference of two independent means.
func halfWidth(w float64, p, q crossPair) float64 {
	parts := []struct {
		v float64
		t int
	}{
		{(1 - w) * (1 - w) * p.pa.se * p.pa.se, p.pa.trials}, {(1 - w) * (1 - w) * p.pb.se * p.pb.se, p.pb.trials},
		{w * w * q.pa.se * q.pa.se, q.pa.trials}, {w * w * q.pb.se * q.pb.se, q.pb.trials},
	}
	v, den := 0.0, 0.0
	for _, x := range parts {
		v += x.v
		den += x.v * x.v / float64(x.t-1)
	}
	if v == 0 {
		return 0
	}
	nu := v * v / den
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(0.975) * math.Sqrt(v)
}

// WriteCrossover prints the pairs and the crossings.
func WriteCrossover(c *Crossover, sums []Summary, format string, w io.Writer) error {
	ps, err := c.pairs(sums)
	if err != nil {
		return err
	}
	what := "final gap"
	if len(sums) > 0 && !math.IsNaN(sums[0].GapFrom) {
		what = fmt.Sprintf("gap over t ≥ %s·m", Number(sums[0].GapFrom))
	}
	pm := func(x side) string { return fmt.Sprintf("%.4g ± %.2g", x.mean, 1.96*x.se) } // a 95% interval (normal), as every table's ±
	head := []string{"n", c.key + "=" + c.a, c.key + "=" + c.b, "difference"}
	var rows [][]string
	for _, p := range ps {
		d := side{mean: p.pa.mean - p.pb.mean, se: math.Hypot(p.pa.se, p.pb.se)}
		rows = append(rows, []string{units.FormatCount(p.n), pm(p.pa), pm(p.pb), pm(d)})
	}
	fmt.Fprintf(w, "%s of %s=%s and %s=%s against n, mean ± 95%% CI over trials (1.96 standard errors)\n", what, c.key, c.a, c.key, c.b)
	writeDisplay(head, rows, format, "rrrr", w)
	if len(c.left) > 0 {
		fmt.Fprintf(w, "left out, below 2 trials on a side: %s\n", strings.Join(c.left, ", "))
	}
	cs := crossings(ps)
	if len(cs) == 0 {
		fmt.Fprintf(w, "the difference keeps its sign from n = %s to %s: no crossing in the range\n", units.FormatCount(ps[0].n), units.FormatCount(ps[len(ps)-1].n))
	}
	for _, x := range cs {
		lo, hi := fmt.Sprintf("%.3g", x.lo), fmt.Sprintf("%.3g", x.hi)
		if x.loOpen {
			lo = "≤ " + lo
		}
		if x.hiOpen {
			hi = "≥ " + hi
		}
		fmt.Fprintf(w, "crossing between n = %s and %s: n ≈ %.3g, 95%% interval [%s, %s] (the difference taken linear in log n between adjacent n; Welch t)\n",
			units.FormatCount(x.from), units.FormatCount(x.to), x.at, lo, hi)
	}
	return nil
}
