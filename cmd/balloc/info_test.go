package main

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
)

// info names the CPUs balloc may use (not the chip's count, which on a VM
// is the host's), and its auto-engine crossovers are the cost model's: at
// each stated n auto picks the histogram engine, at a tenth of it direct.
func TestInfoCoresAndAutoRule(t *testing.T) {
	var out bytes.Buffer
	printInfo(&out)
	if want := fmt.Sprintf("cores        %d usable (runtime.NumCPU", runtime.NumCPU()); !strings.Contains(out.String(), want) {
		t.Errorf("info lacks %q:\n%s", want, out.String())
	}
	names := map[string]string{"one-choice": "one-choice", "two-choice": "two-choice", "(1+β)": "one-plus-beta"}
	found := regexp.MustCompile(`(one-choice|two-choice|\(1\+β\)) [^,\n]*?10\^(\d+)`).FindAllStringSubmatch(autoCrossovers(10_000), -1)
	if len(found) != 3 {
		t.Fatalf("autoCrossovers: %q", autoCrossovers(10_000))
	}
	for _, m := range found {
		e, _ := strconv.Atoi(m[2])
		set := map[string]string(nil)
		if m[1] == "(1+β)" {
			set = map[string]string{"beta": "0.5"}
		}
		for _, c := range []struct {
			e    int
			want core.Engine
		}{{e, core.EngineHistogram}, {e - 1, core.EngineDirect}} {
			n := uint64(1)
			for range c.e {
				n *= 10
			}
			s, err := core.NewSpec(names[m[1]], set, core.Common{Bins: n, Balls: n * 10_000, Trials: 1, Engine: core.EngineAuto})
			if err != nil || s.ResolvedEngine() != c.want {
				t.Errorf("%s at n = 10^%d: %v (%v), info implies %s", m[1], c.e, s.ResolvedEngine(), err, c.want)
			}
		}
	}
}
