package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
)

// BenchmarkConcurrent: b.N balls of two-choice at n = 10^6 placed by
// GOMAXPROCS workers (run with -cpu 1,2), racy, on packed and padded loads,
// measuring the staleness of every 256th ball as balloc concurrent does.
func BenchmarkConcurrent(b *testing.B) {
	for _, layout := range []concurrency.Layout{concurrency.Packed, concurrency.Padded} {
		b.Run(fmt.Sprintf("two-choice/n=1e6/racy/%s", layout), func(b *testing.B) {
			s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 1_000_000, Balls: uint64(max(b.N, 1_000_000)), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			res, err := concurrency.Run(concurrency.Config{Spec: s, Workers: runtime.GOMAXPROCS(0), Mode: concurrency.Racy,
				Layout: layout, MeasureEvery: 256})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.BallsPerS, "balls/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
