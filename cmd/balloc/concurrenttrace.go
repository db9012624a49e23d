package main

import (
	"fmt"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core/units"
)

// checkTraceMemory refuses --trace-ages when the loads (need bytes), the two
// 8-byte stamps a ball kept during the run and the 4-byte age a ball kept
// after it take more than the memory available (0 bytes: unknown, no check).
func checkTraceMemory(balls, need uint64, mem units.Memory) error {
	total := units.Add(units.Mul(balls, concurrency.TraceBytesPerBall), need)
	if mem.Bytes > 0 && total > mem.Bytes {
		return fmt.Errorf("--balls %s: --trace-ages keeps two 8-byte stamps and a 4-byte age a ball, %s with the loads, more than the %v; lower --balls or leave out --trace-ages",
			units.FormatCount(balls), units.FormatBytes(float64(total)), mem)
	}
	return nil
}
