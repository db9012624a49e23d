package main

import (
	"runtime"
	"testing"

	"github.com/balloc/balloc/core/units"
)

// A sweep of 2^31 trials lists no 2^31 jobs (32 GiB) before its memory
// check: refused for memory, it has allocated little, and the refusal
// names the grid point and the flag that drives its size.
func TestSweepTrials2To31AllocatesNoJobList(t *testing.T) {
	avail := units.AvailableMemory()
	if avail == 0 {
		t.Skip("no memory figure on this machine")
	}
	file := tempFile(t, "big.toml", "processes = [\"two-choice\"]\nbins = [\"4e9\"]\nballs = [10]\nengine = \"direct\"\ntrials = \"2^31\"\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := run(t, "sweep", file, "--out", t.TempDir()+"/d", "--workers", "2")
	runtime.ReadMemStats(&after)
	oneLineExit2(t, "sweep of 2^31 trials", code, out, errs, "mostly for --bins 4e9")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("a refused sweep of 2^31 trials allocated %d MiB", grew>>20)
	}
}
