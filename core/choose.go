package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// The cost model of --engine auto. auto picks the engine whose estimated
// time for the spec is the smaller, from these constants alone — never from
// the machine — so that the engine, and with it every draw of a trial, is
// the same everywhere. The constants are ns per ball on one core, measured
// once (balloc 2026-12, one trial each on a 2-core x86-64 shared with other
// jobs, core/hist/batch.go's level batches): the direct engine's two-choice
// loop at n = 10^4, 10^6, 10^8 (3.06, 5.46, 32.9 ns; memory-bound past the
// caches), other processes as a factor of it at n = 10^6; the histogram
// engine's per-ball rank loops at n = 10^3 and 10^6, its level batches at
// m = 1000·n, n = 10^6 and 10^8 (two-choice 0.957 and 0.0914 ns, (1+β)
// 1.38 and 0.143 ns: a batch costs about 3.8 µs (5.5 µs) and holds about
// 4·√n balls), its b-batch batches at b = 10^3 and 10^6 (11.7 and 141 µs a
// batch) and its one-choice throws (0.2 s at m/n = 10^6); and the direct
// engine's setup and summary, 1.14 ns a bin (two-choice, m = 1, n = 10^8).

// directBinNs: the direct engine's cost per bin of allocating the loads and
// summarising them at each checkpoint.
const directBinNs = 1.14

// histogramTrialS is the histogram engine's fixed cost a trial (its guide
// table of 2^11 entries, the summary): an estimate, not a measurement; it
// only decides runs of a few microseconds.
const histogramTrialS = 5e-6

// directTwoChoiceNs: log10 n → ns per ball of the direct two-choice loop.
var directTwoChoiceNs = [][2]float64{{4, 3.06}, {6, 5.46}, {8, 32.9}}

// directNs is the direct engine's estimated ns per ball for s.
func directNs(s *Spec) float64 {
	x := math.Log10(float64(s.Bins))
	t := directTwoChoiceNs
	ns := t[0][1]
	for i := 1; i < len(t); i++ {
		if x >= t[i-1][0] {
			f := math.Min(1, (x-t[i-1][0])/(t[i][0]-t[i-1][0]))
			ns = t[i-1][1] + f*(t[i][1]-t[i-1][1])
		}
	}
	if x > t[len(t)-1][0] { // past the table: grows as the array does, by the last slope
		a, b := t[len(t)-2], t[len(t)-1]
		ns = b[1] + (x-b[0])*(b[1]-a[1])/(b[0]-a[0])
	}
	factor := s.Proc.(process.Histogram).DirectFactor() // against two-choice at n = 10^6
	return ns * factor
}

// histogramSeconds is the histogram engine's estimated seconds for a trial
// of s (its process's estimate, from constants measured as above).
func histogramSeconds(s *Spec) float64 {
	return s.Proc.(process.Histogram).HistogramSeconds(s.Bins, s.Balls, s.Checkpoints)
}

// autoEngine is auto's choice for s, which the histogram engine can run,
// and the reason in words for the table header.
func autoEngine(s *Spec) (Engine, string) {
	hist := histogramSeconds(s) + histogramTrialS
	direct := (float64(s.Balls)*directNs(s) + float64(s.Checkpoints+1)*float64(s.Bins)*directBinNs) * 1e-9
	if s.Bins > kernels.MaxBins {
		return EngineHistogram, fmt.Sprintf("more bins than the direct engine holds; est. %s a trial", seconds(hist))
	}
	if hist < direct {
		return EngineHistogram, fmt.Sprintf("est. %s a trial against %s on direct", seconds(hist), seconds(direct))
	}
	return EngineDirect, fmt.Sprintf("est. %s a trial against %s on histogram", seconds(direct), seconds(hist))
}

// seconds formats an estimate to two significant digits.
func seconds(x float64) string {
	return strconv.FormatFloat(x, 'g', 2, 64) + " s"
}

// histogramSupports reports whether the histogram engine runs s, and why not.
func histogramSupports(s *Spec) (bool, string) {
	if s.Dims() > 1 {
		return false, "multi-dimensional balls (--dims) run on the direct engine"
	}
	if _, ok := s.Proc.(process.Leaking); ok {
		return false, "leaky bins run on the direct engine only (a batch placed on the round-start loads is not built on level counts)"
	}
	if _, ok := s.Proc.(process.Histogram); !ok {
		return false, s.Process.Name + " is not symmetric (which bin gets a ball depends on more than loads)"
	}
	if h, ok := s.Proc.(process.HistogramWhy); ok && h.HistogramWhy() != "" {
		return false, h.HistogramWhy()
	}
	if !s.Weights.Unit() {
		return false, "random weights make loads real-valued; the histogram engine counts bins per integer load"
	}
	if s.KeepLoads {
		return false, "--loads needs every bin's load; the histogram engine keeps counts per load"
	}
	if span := s.Initial.Span(); span > process.MaxInitialSpan {
		return false, fmt.Sprintf("--initial %s spans %d load levels, and the histogram engine holds every level from the least load to the largest (at most 2^24)", s.Initial.String(), span)
	}
	return true, ""
}

// AutoCrossovers says, for a few processes at m/n = perBin, the least power
// of ten n from which --engine auto picks the histogram engine, read from
// core's cost model itself (NewSpec), so that info cannot drift from it.
func AutoCrossovers(perBin uint64) string {
	var parts []string
	for _, p := range []struct {
		name string
		set  map[string]string
		show string
	}{
		{"one-choice", nil, "one-choice"},
		{"two-choice", nil, "two-choice"},
		{"one-plus-beta", map[string]string{"beta": "0.5"}, "(1+β) β=½"},
	} {
		from := "never up to 10^12"
		for e, n := 1, uint64(10); e <= 12; e, n = e+1, n*10 {
			s, err := NewSpec(p.name, p.set, Common{Bins: n, Balls: n * perBin, Trials: 1, Engine: EngineAuto})
			if err == nil && s.ResolvedEngine() == EngineHistogram {
				from = fmt.Sprintf("10^%d", e)
				break
			}
		}
		parts = append(parts, p.show+" "+from)
	}
	return strings.Join(parts, ", ")
}
