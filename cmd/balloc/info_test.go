package main

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
)

// info names the CPUs balloc may use (not the chip's count, which on a VM
// is the host's), and prints the cost model's crossovers (core's
// TestAutoCrossovers checks them).
func TestInfoCores(t *testing.T) {
	var out bytes.Buffer
	printInfo(&out)
	if want := fmt.Sprintf("cores        %d usable (runtime.NumCPU", runtime.NumCPU()); !strings.Contains(out.String(), want) {
		t.Errorf("info lacks %q:\n%s", want, out.String())
	}
	if want := core.AutoCrossovers(10_000); !strings.Contains(out.String(), want) {
		t.Errorf("info lacks the crossovers %q:\n%s", want, out.String())
	}
}
