package engine

import (
	"math"
	"unsafe"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
)

// loadBytes is the size of one bin's load in the direct engine: 32-bit
// counters while no bin can reach 2^32 (fewer balls than that in all), else
// 64-bit; real-valued loads for random weights.
func loadBytes(s *core.Spec) uint64 {
	if !s.Weights.Unit() || s.Balls > math.MaxUint32-min(s.InitialBalls(), math.MaxUint32) {
		return 8
	}
	return 4
}

// Footprint estimates the bytes one running trial holds: the load
// array and the scratch of a snapshot (a count per load level, at most
// result.MaxCountLevels of them, or the weight buffer), the process's own state
// (process.Footprinter), the checkpoints it records and the loads it returns. A
// snapshot whose loads span more levels than that sorts a copy instead,
// which only happens when there are few bins.
func Footprint(s *core.Spec) units.Footprint {
	var f units.Footprint
	bins, binsHint := s.BinsCulprit()
	if s.KeepLoads {
		f.Add("--loads", "leave out --loads", units.Mul(s.Bins, 8))
	}
	if s.Checkpoints > 0 {
		// A checkpoint kept in the result and its target ball count.
		f.Add("--checkpoints "+units.FormatCount(s.Checkpoints), "lower --checkpoints", units.Mul(s.Checkpoints, uint64(unsafe.Sizeof(result.Checkpoint{}))+8))
	}
	if s.ResolvedEngine() == core.EngineHistogram {
		f.Add("--balls "+units.FormatCount(s.Balls), "lower --balls", histogramMemory(s))
		return f
	}
	lb := loadBytes(s)
	scratch := uint64(result.MaxCountLevels * 8)
	weighted := !s.Weights.Unit()
	if weighted {
		scratch = weightBuffer * 8
	}
	f.Add(bins, binsHint, units.Add(units.Mul(s.Bins, lb), scratch))
	if m := staleMemory(s); m > 0 { // stale.go
		f.Add("--update-delay/--update-individual", "lower --bins or the delay", m)
	}
	if m, ok := s.Proc.(process.Footprinter); ok {
		m.Footprint(&f, process.Mem{Bins: s.Bins, Balls: s.Balls, LoadBytes: lb, Weighted: weighted, BinsCulprit: bins, BinsHint: binsHint})
	}
	return f
}
