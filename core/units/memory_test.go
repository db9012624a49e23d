package units

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestParseProcTexts(t *testing.T) {
	meminfo := "MemTotal:       24576000 kB\nMemFree:  1000 kB\nMemAvailable:   2048 kB\n"
	if b, ok := parseMeminfo(meminfo); !ok || b != 2048*1024 {
		t.Errorf("MemAvailable = %d, %v; want %d", b, ok, 2048*1024)
	}
	if _, ok := parseMeminfo("MemTotal: 1 kB\n"); ok {
		t.Error("a meminfo without MemAvailable read as one")
	}
	status := "Name:\tballoc\nVmPeak:\t 9 kB\nVmSize:\t 1227184 kB\nVmData:\t   40672 kB\n"
	size, data, ok := parseStatus(status)
	if !ok || size != 1227184*1024 || data != 40672*1024 {
		t.Errorf("VmSize, VmData = %d, %d, %v", size, data, ok)
	}
}

// writeTree makes files under root from a path → content map.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCgroupRoom(t *testing.T) {
	const mountV2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	const mountV1 = "31 23 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"32 23 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	for _, tc := range []struct {
		name      string
		self      string
		mountinfo string
		files     map[string]string
		want      uint64 // 0: no limit
		limit     string // a part of the limit's name
	}{
		{
			name: "v2: the job's own limit, less its use without inactive page cache",
			self: "0::/slurm/job_7/step_0\n", mountinfo: mountV2,
			files: map[string]string{
				"/sys/fs/cgroup/slurm/job_7/step_0/memory.max":     "8000000000\n",
				"/sys/fs/cgroup/slurm/job_7/step_0/memory.current": "3000000000\n",
				"/sys/fs/cgroup/slurm/job_7/step_0/memory.stat":    "anon 1000\nfile 2000000000\ninactive_file 1000000000\n",
				"/sys/fs/cgroup/slurm/memory.max":                  "max\n",
			},
			want: 8000000000 - 2000000000, limit: "/sys/fs/cgroup/slurm/job_7/step_0/memory.max",
		},
		{
			name: "v2: an ancestor's tighter limit binds",
			self: "0::/a/b\n", mountinfo: mountV2,
			files: map[string]string{
				"/sys/fs/cgroup/a/b/memory.max":     "max\n",
				"/sys/fs/cgroup/a/memory.max":       "4000000000\n",
				"/sys/fs/cgroup/a/memory.current":   "1000000000\n",
				"/sys/fs/cgroup/memory.max":         "max\n",
				"/sys/fs/cgroup/a/b/memory.current": "5\n",
			},
			want: 3000000000, limit: "/sys/fs/cgroup/a/memory.max",
		},
		{
			name: "v2: no limit anywhere",
			self: "0::/a\n", mountinfo: mountV2,
			files: map[string]string{"/sys/fs/cgroup/a/memory.max": "max\n"},
		},
		{
			name: "v1 beside a v2 mount without memory files",
			self: "4:memory:/process_api/x\n0::/\n", mountinfo: mountV2 + mountV1,
			files: map[string]string{
				"/sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "2000000000\n",
				"/sys/fs/cgroup/memory/process_api/x/memory.usage_in_bytes": "500000000\n",
				"/sys/fs/cgroup/memory/process_api/x/memory.stat":           "cache 9\ntotal_inactive_file 100000000\n",
				"/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":   "9223372036854771712\n",
			},
			want: 2000000000 - 400000000, limit: "cgroup v1",
		},
		{
			name: "a container: the mount's root is the process's cgroup",
			self: "0::/docker/abc\n", mountinfo: "30 23 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			files: map[string]string{
				"/sys/fs/cgroup/memory.max":     "1000000000\n",
				"/sys/fs/cgroup/memory.current": "999999999\n",
			},
			want: 1, limit: "cgroup v2",
		},
		{
			name: "a limit already exceeded reads as 1 byte, so that checks still refuse",
			self: "0::/a\n", mountinfo: mountV2,
			files: map[string]string{
				"/sys/fs/cgroup/a/memory.max":     "1000\n",
				"/sys/fs/cgroup/a/memory.current": "5000\n",
			},
			want: 1, limit: "cgroup v2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			m, ok := cgroupRoom(root, tc.self, tc.mountinfo)
			if tc.want == 0 {
				if ok {
					t.Fatalf("found a limit %v; want none", m)
				}
				return
			}
			if !ok || m.Bytes != tc.want {
				t.Fatalf("room = %d (%v); want %d", m.Bytes, ok, tc.want)
			}
			if !strings.Contains(m.Limit, tc.limit) {
				t.Errorf("limit %q does not name %q", m.Limit, tc.limit)
			}
		})
	}
}

// TestMemoryLimitUnderRlimitAS lowers RLIMIT_AS in a child copy of this test
// binary (never in this process), then asks for one block of all that
// MemoryLimit says is left: the child dies out of memory if the address
// space already mapped or the runtime's reserve were not counted.
func TestMemoryLimitUnderRlimitAS(t *testing.T) {
	const limit = 3 << 30
	if os.Getenv("BALLOC_MEMORY_CHILD") == "1" {
		rl := syscall.Rlimit{Cur: limit, Max: limit}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
			t.Skip("cannot lower RLIMIT_AS:", err)
		}
		m := MemoryLimit()
		if !strings.Contains(m.Limit, "RLIMIT_AS") {
			t.Fatalf("under RLIMIT_AS = 3 GiB the limit is %v", m)
		}
		block := make([]byte, m.Bytes)
		block[0], block[len(block)-1] = 1, 1
		fmt.Printf("allocated %d bytes under %v\n", len(block), m)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryLimitUnderRlimitAS$", "-test.v")
	cmd.Env = append(os.Environ(), "BALLOC_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "allocated ") {
		t.Fatalf("child under RLIMIT_AS: %v\n%s", err, out)
	}
	// Not needlessly strict either: a Go process maps about 1.2 GiB before
	// main, and the reserve is under 0.5 GiB on a machine of 32 threads.
	t.Logf("%s", out)
	var got uint64
	fmt.Sscanf(string(out[strings.Index(string(out), "allocated "):]), "allocated %d", &got)
	if got < 1<<30 {
		t.Errorf("under 3 GiB of address space only %d bytes were offered:\n%s", got, out)
	}
}
