package concurrency

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core/units"
)

// The trace's memory check, against a machine of 1 MiB: 20 bytes a ball.
func TestTraceMemory(t *testing.T) {
	// The memory check, against a machine of 1 MiB.
	if err := checkTraceMemory(1e5, 400, units.Memory{Bytes: 1 << 20, Limit: "a test"}); err == nil || !strings.Contains(err.Error(), "--balls 1e5: --trace-ages keeps") {
		t.Errorf("1e5 balls in 1 MiB: %v", err)
	}
	if err := checkTraceMemory(5e4, 400, units.Memory{Bytes: 1 << 20, Limit: "a test"}); err != nil {
		t.Errorf("5e4 balls (1 MB) in 1 MiB: %v", err)
	}
}
