package units

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Memory is what new allocations may take, and the limit that sets it.
type Memory struct {
	Bytes uint64 // 0: no limit could be read
	Limit string // the limit that binds, as "RLIMIT_AS (ulimit -v) of 7.5 GiB less 1.2 GiB already mapped"
}

// String writes "6.8 GiB of memory available (RLIMIT_AS … )", for errors
// that refuse a run: a user under Slurm's --mem or a container sees which
// limit to raise.
func (m Memory) String() string {
	return FormatBytes(float64(m.Bytes)) + " of memory available (" + m.Limit + ")"
}

// AvailableMemory is MemoryLimit().Bytes: 0 when no limit can be read.
func AvailableMemory() uint64 { return MemoryLimit().Bytes }

// MemoryLimit returns the least of the limits on new allocations:
//
//   - MemAvailable in /proc/meminfo, what the kernel can give without
//     swapping;
//   - RLIMIT_AS (ulimit -v, what Slurm's --mem enforces on some clusters)
//     less the address space already mapped (VmSize): a Go process
//     reserves about 0.7–1.2 GiB of address space before main runs, and a
//     block of b bytes grows VmSize by b rounded up to the runtime's 64 MiB
//     heap arenas;
//   - RLIMIT_DATA (ulimit -d) less the private writable memory already
//     mapped (VmData), which is what the kernel counts against it;
//   - the memory cgroup of this process and of every cgroup above it
//     (containers, systemd slices, Slurm's cgroup plugin): cgroup v2
//     memory.max, else cgroup v1 memory.limit_in_bytes, less what the
//     cgroup uses, not counting inactive page cache (which the kernel
//     reclaims before it fails an allocation). Which cgroups set a limit,
//     and the limit, are read once (ownLimits); their use every call.
//
// From the two rlimits it also keeps runtimeReserve for what the Go runtime
// maps beside the blocks balloc asks for. A limit that is already spent
// reads as 1 byte, not 0, so that every check still refuses.
func MemoryLimit() Memory {
	var best Memory
	consider := func(b uint64, limit string) {
		if best.Limit == "" || b < best.Bytes {
			best = Memory{Bytes: max(b, 1), Limit: limit}
		}
	}
	if b, ok := parseMeminfo(readSmall("/proc/meminfo")); ok {
		consider(b, "MemAvailable in /proc/meminfo")
	}
	var status struct {
		read, ok       bool
		vmSize, vmData uint64
	}
	reserve := runtimeReserve()
	for _, r := range []struct {
		res  int
		name string
		used *uint64
		what string
	}{
		{syscall.RLIMIT_AS, "RLIMIT_AS (ulimit -v)", &status.vmSize, "already mapped"},
		{syscall.RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)", &status.vmData, "of data already mapped"},
	} {
		var rl syscall.Rlimit
		if syscall.Getrlimit(r.res, &rl) != nil || rl.Cur == math.MaxUint64 || rl.Cur >= 1<<62 {
			continue
		}
		if !status.read { // only under a limit: the read costs 0.2 ms
			status.vmSize, status.vmData, status.ok = parseStatus(readSmall("/proc/self/status"))
			status.read = true
		}
		if !status.ok {
			consider(sub(rl.Cur, reserve), fmt.Sprintf("%s of %s", r.name, FormatBytes(float64(rl.Cur))))
			continue
		}
		consider(sub(rl.Cur, Add(*r.used, reserve)), fmt.Sprintf("%s of %s less %s %s", r.name, FormatBytes(float64(rl.Cur)), FormatBytes(float64(*r.used)), r.what))
	}
	if m, ok := cgroupRoomIn(ownLimits()); ok {
		consider(m.Bytes, m.Limit)
	}
	return best
}

// runtimeReserve is the address space the Go runtime may still map besides
// the blocks balloc asks for: one 64 MiB heap arena (a block rounds up to
// whole arenas) and a thread stack of 8 MiB (glibc's default under cgo) for
// each thread the workers and the runtime may still start.
func runtimeReserve() uint64 {
	return 64<<20 + uint64(runtime.GOMAXPROCS(0)+8)*(8<<20)
}

func sub(a, b uint64) uint64 {
	if b >= a {
		return 0
	}
	return a - b
}

// readSmall reads a file of /proc or /sys, at most 1 MiB of it, or "".
func readSmall(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	return string(b)
}

// parseMeminfo returns MemAvailable of a /proc/meminfo text.
func parseMeminfo(text string) (uint64, bool) {
	v, ok := kbField(text, "MemAvailable")
	return v, ok
}

// parseStatus returns VmSize and VmData of a /proc/self/status text.
func parseStatus(text string) (vmSize, vmData uint64, ok bool) {
	size, ok1 := kbField(text, "VmSize")
	data, ok2 := kbField(text, "VmData")
	return size, data, ok1 && ok2
}

// kbField reads "Name:   123 kB" from a /proc text, in bytes.
func kbField(text, name string) (uint64, bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		n, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || n != name {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 2 && fields[1] == "kB" {
			if kb, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
				return Mul(kb, 1024), true
			}
		}
	}
	return 0, false
}

// cgroupLimit is one cgroup that sets a memory limit: its folder, the
// limit, and the files that say its use.
type cgroupLimit struct {
	at, name           string // the folder read; the limit file as the message names it
	unit               string // "cgroup v2" or "cgroup v1"
	usedFile, inactive string
	limit              uint64
}

// cgroupLimits lists the memory limits of this process's cgroup and its
// ancestors, from the texts of /proc/self/cgroup and /proc/self/mountinfo;
// root prefixes every path read (tests point it at a fake tree). cgroup v2
// is read where it holds the memory controller, else v1.
func cgroupLimits(root, self, mountinfo string) []cgroupLimit {
	var v2, v1 string // this process's cgroup in each hierarchy
	for line := range strings.Lines(self) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasWord(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	for line := range strings.Lines(mountinfo) {
		pre, post, sep := strings.Cut(strings.TrimSpace(line), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !sep || len(f) < 5 || len(g) < 3 {
			continue
		}
		mroot, point := f[3], f[4]
		var cg, maxFile, usedFile, inactive, unit string
		switch {
		case g[0] == "cgroup2" && v2 != "":
			cg, maxFile, usedFile, inactive, unit = v2, "memory.max", "memory.current", "inactive_file", "cgroup v2"
		case g[0] == "cgroup" && v1 != "" && hasWord(g[2], "memory"):
			cg, maxFile, usedFile, inactive, unit = v1, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "cgroup v1"
		default:
			continue
		}
		// The cgroup's folder under the mount: its path relative to the
		// mount's root (a container sees its own cgroup as the root).
		rel, inside := strings.CutPrefix(cg, mroot)
		if mroot == "/" {
			rel, inside = cg, true
		}
		if !inside {
			rel = "/"
		}
		var out []cgroupLimit
		for dir := path.Clean("/" + rel); ; dir = path.Dir(dir) {
			at := path.Join(root, point, dir)
			if limit, ok := parseLimit(readSmall(path.Join(at, maxFile))); ok {
				out = append(out, cgroupLimit{at: at, name: path.Join(point, dir, maxFile), unit: unit, usedFile: usedFile, inactive: inactive, limit: limit})
			}
			if dir == "/" {
				break
			}
		}
		if len(out) > 0 {
			return out // one hierarchy holds the memory controller
		}
	}
	return nil
}

// cgroupRoomIn returns the least room left under the limits: each limit
// less its cgroup's use now, without inactive page cache. found is false
// when there are none.
func cgroupRoomIn(limits []cgroupLimit) (m Memory, found bool) {
	for _, c := range limits {
		used, ok := parseLimit(readSmall(path.Join(c.at, c.usedFile)))
		if !ok {
			used = 0
		}
		if cache, ok := statField(readSmall(path.Join(c.at, "memory.stat")), c.inactive); ok {
			used = sub(used, cache)
		}
		room := sub(c.limit, used)
		if !found || room < m.Bytes {
			name := fmt.Sprintf("%s %s of %s less the %s in use", c.unit, c.name, FormatBytes(float64(c.limit)), FormatBytes(float64(used)))
			m, found = Memory{Bytes: max(room, 1), Limit: name}, true
		}
	}
	return m, found
}

// cgroupRoom is cgroupRoomIn of cgroupLimits.
func cgroupRoom(root, self, mountinfo string) (Memory, bool) {
	return cgroupRoomIn(cgroupLimits(root, self, mountinfo))
}

// ownLimits are this process's cgroup limits, found once: where they are
// and what they are set to do not change under a run (its use does, and is
// read every time). Reading /proc and /sys costs about 0.2 ms, and a sweep
// may check thousands of points.
var ownLimits = sync.OnceValue(func() []cgroupLimit {
	return cgroupLimits("", readSmall("/proc/self/cgroup"), readSmall("/proc/self/mountinfo"))
})

// parseLimit reads a cgroup memory file: a byte count, or "max" (v2) or a
// count near 2^63 (v1) for no limit.
func parseLimit(text string) (uint64, bool) {
	s := strings.TrimSpace(text)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= 1<<62 {
		return 0, false
	}
	return v, true
}

// statField reads "name value" from a memory.stat text.
func statField(text, name string) (uint64, bool) {
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && k == name {
			x, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return x, err == nil
		}
	}
	return 0, false
}

// hasWord says whether a comma-separated list holds w.
func hasWord(list, w string) bool {
	for x := range strings.SplitSeq(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}
