package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/units"
)

// BenchmarkEngines: the histogram engine beside the direct engine per ball,
// at n = 10^4 (ball by ball on ranks) and n = 10^6.
func BenchmarkEngines(b *testing.B) {
	for _, c := range []struct {
		name, process string
		params        map[string]string
	}{
		{"two-choice", "two-choice", nil},
		{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"}},
		{"g-myopic-comp-g4", "g-myopic-comp", map[string]string{"g": "4"}},
	} {
		for _, n := range []uint64{10_000, 1_000_000} {
			for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
				b.Run(fmt.Sprintf("%s/n=%s/%s", c.name, units.FormatCount(n), eng), func(b *testing.B) {
					s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: eng})
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					engine.RunTrial(s, 0, nil)
					report(b)
				})
			}
		}
	}
}

// BenchmarkHistogramScale: the sizes only the histogram engine reaches, one
// whole trial per iteration; reports seconds per trial and the memory the Go
// runtime holds from the OS (an upper bound on what the trial needs).
func BenchmarkHistogramScale(b *testing.B) {
	for _, c := range []struct {
		name, process string
		params        map[string]string
		n, m          uint64
	}{
		{"two-choice/n=1e9/m=1e9", "two-choice", nil, 1e9, 1e9},
		{"two-choice/n=1e12/m=1e12", "two-choice", nil, 1e12, 1e12},
		{"two-choice/n=1e9/m=1e12", "two-choice", nil, 1e9, 1e12},
		{"one-choice/n=1e6/m=1e12", "one-choice", nil, 1e6, 1e12},
		{"b-batch/n=1e6/b=n/m=1e9", "b-batch", map[string]string{"batch": "1000000"}, 1e6, 1e9},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: c.n, Balls: c.m, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineHistogram})
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for i := range b.N {
				engine.RunTrial(s, uint64(i), nil)
			}
			b.StopTimer()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/trial")
			b.ReportMetric(float64(c.m)*float64(b.N)/b.Elapsed().Seconds(), "balls/s")
			b.ReportMetric(float64(after.Sys)/(1<<20), "MiB-sys")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkHeavyLoad: m = 1000·n, where the level batches run, beside the
// direct engine at the same n. The histogram engine runs one whole trial of
// 1000·n balls per iteration; the direct engine b.N balls in one trial (its
// cost per ball does not depend on m/n, and 1000·n balls at n = 10^8 would
// take an hour). Compare balls/s of the pair, measured in the same run.
func BenchmarkHeavyLoad(b *testing.B) {
	for _, c := range []struct {
		name, process string
		params        map[string]string
	}{
		{"two-choice", "two-choice", nil},
		{"one-plus-beta-0.5", "one-plus-beta", map[string]string{"beta": "0.5"}},
	} {
		for _, n := range []uint64{1_000_000, 100_000_000} {
			b.Run(fmt.Sprintf("%s/n=%s/direct", c.name, units.FormatCount(n)), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				engine.RunTrial(s, 0, nil)
				report(b)
			})
			b.Run(fmt.Sprintf("%s/n=%s/m=1000n/histogram", c.name, units.FormatCount(n)), func(b *testing.B) {
				m := 1000 * n
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Balls: m, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineHistogram})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					engine.RunTrial(s, uint64(i), nil)
				}
				b.ReportMetric(float64(m)*float64(b.N)/b.Elapsed().Seconds(), "balls/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
