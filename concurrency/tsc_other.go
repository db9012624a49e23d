//go:build !amd64

package concurrency

import (
	"fmt"
	"runtime"
)

// tscOrdered has no portable form: tracing is refused (checkTSC) before any
// worker would call it.
func tscOrdered() uint64 { panic("concurrency: no time-stamp counter on " + runtime.GOARCH) }

func tscRead() uint64 { return tscOrdered() }

func checkTSC() error {
	return fmt.Errorf("stamps balls with the x86-64 time-stamp counter (RDTSC); this is %s/%s", runtime.GOOS, runtime.GOARCH)
}
