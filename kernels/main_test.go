package kernels

import (
	"os"
	"testing"
)

// TestMain runs the package's tests with the staged loops' prefetch on at
// every size (prefetchAbove = −1), so the loops that compare against their
// references at test sizes, far inside L3, run the prefetch pass too; the
// tests that choose the staging (withStaging) set it themselves, off in
// one of their modes. A prefetch is a hint: it must change no result.
func TestMain(m *testing.M) {
	prefetchAbove = -1
	os.Exit(m.Run())
}
