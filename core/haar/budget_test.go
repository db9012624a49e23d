package haar

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// peakHeap samples the bytes of live and not yet swept heap objects every
// millisecond until stop is closed, and sends the largest seen: the peak of
// a build to within one sample.
func peakHeap(stop <-chan struct{}, out chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	peak := uint64(0)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			out <- peak
			return
		case <-tick.C:
		}
	}
}

// TestPreprocessingBudget builds three sized cases once and
// checks their limits: cycle and torus with n = 2^20 in at most 60 s and
// 4 GiB, a random 3-regular graph with n = 2^16 in at most 60 s. Memory is
// the peak of the heap's objects during the build (peakHeap), the graph
// included; it must not exceed EstimateBytes, by which balloc refuses runs,
// checked too for two plans routed in all of G (dense edge laws).
// Skipped under -short: about half a minute and two gigabytes.
func TestPreprocessingBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds n = 2^20 plans")
	}
	for _, c := range []struct {
		spec  string
		route Route
	}{
		{"cycle:1048576", RouteSet}, {"torus:1024,1024", RouteSet}, {"random-regular:65536,3", RouteSet},
		{"complete:1024", RouteGraph}, {"random-regular:2048,3", RouteGraph},
	} {
		spec := c.spec
		g := mustParse(t, spec)
		runtime.GC()
		stop, peak := make(chan struct{}), make(chan uint64)
		go peakHeap(stop, peak)
		start := time.Now()
		p, err := Build(g, Options{Route: c.route})
		took := time.Since(start)
		close(stop)
		grew := <-peak
		if err != nil {
			t.Fatal(err)
		}
		in := p.Info
		t.Logf("%s route %d: %v, peak heap %.0f MiB (estimate %.0f MiB), tables %.0f MiB; depth %d, C %.3f, support max %d mean %.2f, CG iterations %d (max %d), spectral %d, BFS %d, rerouted %d",
			spec, c.route, took.Round(time.Millisecond), float64(grew)/(1<<20), float64(EstimateBytes(g, c.route))/(1<<20),
			float64(in.TableBytes)/(1<<20), in.Depth, in.C, in.MaxSupport, in.MeanSupport, in.CGIterations, in.MaxCGIterations, in.Spectral, in.BFS, in.Rerouted)
		if took > time.Minute {
			t.Errorf("%s: preprocessing took %v > 60 s", spec, took)
		}
		if est := EstimateBytes(g, c.route); grew > est {
			t.Errorf("%s: preprocessing peaked at %d MiB, above EstimateBytes' %d MiB (balloc refuses runs by it)", spec, grew>>20, est>>20)
		}
		if grew > 4<<30 {
			t.Errorf("%s: preprocessing peaked at %d MiB > 4 GiB", spec, grew>>20)
		}
	}
}
