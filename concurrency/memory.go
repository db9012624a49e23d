package concurrency

import (
	"fmt"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/units"
)

// CheckMemory refuses a run of spec that would not fit the memory limit
// (units.MemoryLimit): its shared loads in layout, in mode local-batch
// the view of every bin each of at most workers workers keeps, with traced
// (Config.TraceAges) two stamps and an age a ball, with record
// (Config.RecordAges) an age a ball. The errors name balloc concurrent's
// flags.
func CheckMemory(spec *core.Spec, mode Mode, layout Layout, workers int, traced, record bool) error {
	need := units.Mul(spec.Bins, layout.Bytes())
	mem := units.MemoryLimit()
	if mem.Bytes > 0 && need > mem.Bytes {
		hint := "lower --bins"
		if layout != Packed {
			hint += " or use --layout packed (4 bytes a bin)"
		}
		return fmt.Errorf("--bins %s: the shared loads need %s, more than the %v; %s", units.FormatCount(spec.Bins), units.FormatBytes(float64(need)), mem, hint)
	}
	if mode == LocalBatch {
		// Each local-batch worker, goroutine or virtual, keeps its own view
		// of every bin: a load and an epoch, 8 bytes a bin (allocator.go,
		// emulate.go).
		most := workers
		views := units.Mul(units.Mul(8, spec.Bins), uint64(most))
		all := units.Add(need, views)
		if mem.Bytes > 0 && all > mem.Bytes {
			return fmt.Errorf("--bins %s: %d local-batch workers keep a view of every bin, %s with the loads, more than the %v; lower --bins or the workers",
				units.FormatCount(spec.Bins), most, units.FormatBytes(float64(all)), mem)
		}
		need = all
	}
	if traced {
		if err := checkTraceMemory(spec.Balls, need, mem); err != nil {
			return err
		}
	}
	if record {
		// Every ball's age is kept for the replay: 4 bytes a ball.
		if all := units.Add(need, units.Mul(4, spec.Balls)); mem.Bytes > 0 && all > mem.Bytes {
			return fmt.Errorf("--balls %s: an emulated run keeps every ball's age for its replay, %s with the loads, more than the %v; lower --balls or add --compare=false",
				units.FormatCount(spec.Balls), units.FormatBytes(float64(all)), mem)
		}
	}
	return nil
}

// checkTraceMemory refuses --trace-ages when the loads (need bytes), the two
// 8-byte stamps a ball kept during the run and the 4-byte age a ball kept
// after it take more than the memory available (0 bytes: unknown, no check).
func checkTraceMemory(balls, need uint64, mem units.Memory) error {
	total := units.Add(units.Mul(balls, TraceBytesPerBall), need)
	if mem.Bytes > 0 && total > mem.Bytes {
		return fmt.Errorf("--balls %s: --trace-ages keeps two 8-byte stamps and a 4-byte age a ball, %s with the loads, more than the %v; lower --balls or leave out --trace-ages",
			units.FormatCount(balls), units.FormatBytes(float64(total)), mem)
	}
	return nil
}
