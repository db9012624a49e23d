package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core/units"
)

// lowerAddressSpace sets RLIMIT_AS to $BALLOC_RLIMIT_AS bytes in a child
// that TestMain runs as balloc (BALLOC_MAIN=1), as prlimit --as, Slurm's
// --mem or a container would; never in the test process itself.
func lowerAddressSpace() {
	v := os.Getenv("BALLOC_RLIMIT_AS")
	if v == "" {
		return
	}
	b, err := strconv.ParseUint(v, 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: b, Max: b})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "balloc test: cannot lower RLIMIT_AS to %s: %v\n", v, err)
		os.Exit(3)
	}
}

// Under RLIMIT_AS = 8 GB every allocation that grows with the input is
// counted before work: each command is refused in one
// line, exit 2, naming the limit, where before it died with an
// out-of-memory trace (hyperedges, a generated graph, the direct engine's
// loads, tau-delay's history, concurrent's shared loads and ages).
func TestMemoryRefusedUnderRlimitAS(t *testing.T) {
	// On a machine with less than 8 GB free, MemAvailable binds first.
	want := "RLIMIT_AS (ulimit -v) of 7.5 GiB"
	if units.MemoryLimit().Bytes < 8e9 {
		want = "of memory available ("
	}
	for _, args := range [][]string{
		{"run", "--process", "hypergraph", "--hyperedges", "random:1e9,16", "--bins", "1e6", "--balls", "1"},
		{"hypergraph-stats", "--hyperedges", "random:1e9,16", "--bins", "1e6"},
		{"hypergraph-stats", "--hyperedges", "random:1e8,16", "--bins", "1e6"},
		{"hypergraph-stats", "--hyperedges", "random:5e7,16", "--bins", "1e6"}, // fits; its statistics do not
		{"run", "--process", "one-choice", "--bins", "3e9", "--balls", "1", "--engine", "direct"},
		{"run", "--process", "threshold", "--bins", "3e9", "--balls", "1", "--engine", "direct"},
		{"run", "--process", "two-choice", "--bins", "3e9", "--arrival-rate", "0.9", "--events", "10", "--engine", "direct"},
		{"run", "--process", "tau-delay", "--tau", "2e9", "--bins", "1e9", "--balls", "1"},
		{"run", "--process", "graphical", "--graph", "random-regular:1e9,3", "--balls", "1"},
		{"graph-stats", "--graph", "random-regular:1e9,3"},
		{"concurrent", "--process", "two-choice", "--bins", "3e9", "--balls", "1"},
		{"concurrent", "--process", "two-choice", "--layout", "padded", "--bins", "1e8", "--balls", "1"},
		{"concurrent", "--process", "two-choice", "--bins", "1e3", "--balls", "4294967295", "--emulate", "2"},
		// Each local-batch worker keeps a view of every bin: 1000 of them
		// at 2^20 bins are 8 GB.
		{"concurrent", "--process", "two-choice", "--mode", "local-batch", "--batch", "64", "--emulate", "1000", "--bins", "1048576", "--balls", "1", "--compare=false"},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "BALLOC_MAIN=1", "BALLOC_RLIMIT_AS=8000000000")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		line := stderr.String()
		switch {
		case code != 2:
			t.Errorf("%q: exit %d, want 2; stderr %.300q", args, code, line)
		case stdout.Len() > 0:
			t.Errorf("%q: wrote %q to stdout before refusing", args, stdout.String())
		case strings.Count(line, "\n") != 1:
			t.Errorf("%q: stderr is not one line: %.300q", args, line)
		case !strings.Contains(line, want):
			t.Errorf("%q: %q does not name the limit", args, line)
		}
	}
}
