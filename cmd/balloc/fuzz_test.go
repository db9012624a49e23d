package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/balloc/balloc/core/units"
)

// fuzzedRunFlags are the flags of balloc run the fuzzer sets, in a fixed
// order. Left out: the flags that write files (a fuzzed path could be any
// file) and --ages, which reads one (a fuzzed path could be /dev/zero).
func fuzzedRunFlags() []string {
	var names []string
	for _, c := range newRoot(io.Discard, io.Discard).Commands() {
		if c.Name() != "run" {
			continue
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch f.Name {
			case "cpuprofile", "memprofile", "trace", "plot", "ages":
			default:
				names = append(names, f.Name)
			}
		})
	}
	return names
}

// fuzzCap is the largest number a fuzzed value may hold, so that no legal
// value runs long or allocates much: sizes, counts, graph and hypergraph
// parameters and noise scales all stay tiny. --seed, --alpha, --beta and
// --threshold cost nothing however large, so they are not capped.
const fuzzCap = 64

func fuzzTooBig(name, v string) bool {
	switch name {
	case "seed", "alpha", "beta", "threshold":
		return false
	}
	for _, piece := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ':' }) {
		if x, err := strconv.ParseFloat(piece, 64); err == nil && !(math.Abs(x) <= fuzzCap) {
			return true
		}
		if x, err := units.ParseCount(piece); err == nil && x > fuzzCap {
			return true
		}
	}
	return false
}

// FuzzRunFlags runs balloc run at 4 bins and 8 balls with one fuzzed flag
// value: it must exit 0 or 2 (bad input, one line on stderr), never panic
// and never print a runtime trace.
func FuzzRunFlags(f *testing.F) {
	names := fuzzedRunFlags()
	index := map[string]uint8{}
	for i, n := range names {
		index[n] = uint8(i)
	}
	for _, n := range names {
		for _, v := range []string{"", "-1", "0", "1", "abc", "1e400", "2^64", "NaN", "1,,2", "true", "3,2"} {
			f.Add(index[n], v)
		}
	}
	for _, s := range []struct{ flag, value string }{
		{"process", "two-choice,one-choice"}, {"process", "graphical"}, {"process", "idea"}, {"process", "tau-delay"},
		{"process", "kp-groups"}, {"process", "hypergraph"}, {"process", "always-go-left"}, {"process", "b-batch"},
		{"weights", "exp:1"}, {"weights", "pareto:3"}, {"weights", "uniform:0,2"}, {"weights", "const:2"},
		{"rho", "gauss:1"}, {"rho", "step:1,0.5"}, {"rho", "logistic:0"}, {"graph", "cycle:8"}, {"graph", "torus:2,2"},
		{"graph", "hypercube:3"}, {"graph", "erdos-renyi:8,0.5"}, {"hyperedges", "random:4,2"}, {"hyperedges", "intervals:2"},
		{"engine", "histogram"}, {"format", "csv"}, {"format", "json"}, {"checkpoints", "8"}, {"d", "4"}, {"dims", "3"},
		{"balls", "0"}, {"bins", "1"}, {"alpha", "1e300"}, {"threshold", "-1e300"}, {"seed", "18446744073709551615"},
	} {
		f.Add(index[s.flag], s.value)
	}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		name := names[int(which)%len(names)]
		if fuzzTooBig(name, value) || strings.Contains(value, "file:") {
			t.Skip("a size too large to run quickly, or a file")
		}
		base := []string{"--process", "two-choice", "--bins", "4", "--balls", "8", "--progress", "never"}
		args := append([]string{"run"}, with(base, []string{"--" + name, "-"})...)
		args = append(args, "--"+name+"="+value)
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					stderr.WriteString(fmt.Sprintf("panic: %v\ngoroutine (recovered)\n", r))
					done <- -1
				}
			}()
			done <- Main(args, &stdout, &stderr)
		}()
		// While fuzzing, an input that hangs must fail as itself, so that
		// the fuzzer saves it: after 30 s (a run of 8 balls takes
		// milliseconds; nothing else would stop it before go test's
		// -timeout). The seed corpus, which make test runs, waits without
		// a deadline: a busy machine only slows it, and a hang there is
		// -timeout's to report.
		var hang <-chan time.Time
		if fuzzing() {
			hang = time.After(30 * time.Second)
		}
		var code int
		select {
		case code = <-done:
		case <-hang:
			t.Fatalf("%q: still running after 30 s", args)
		}
		out := stdout.String() + stderr.String()
		if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
			t.Fatalf("%q: a runtime trace:\n%s", args, out)
		}
		switch code {
		case 0:
		case 2:
			if strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("%q: exit 2 with stderr not one line: %q", args, stderr.String())
			}
		default:
			t.Fatalf("%q: exit %d, want 0 or 2:\n%s", args, code, out)
		}
	})
}

// fuzzing says whether go test is fuzzing (-fuzz given), not only running
// the seed corpus.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
