package units

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// AvailableMemory returns the bytes the kernel reports as available for new
// allocations (MemAvailable), or 0 when it cannot tell.
func AvailableMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 2 && fields[1] == "kB" {
			if kb, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
