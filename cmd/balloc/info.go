package main

import (
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/hist"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

func newInfoCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "Print the CPU, its caches and the kernels balloc will use on it",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			printInfo(stdout)
			return nil
		},
	}
}

func printInfo(w io.Writer) {
	c := cpuid.CPU
	kib := func(b int) string {
		if b <= 0 {
			return "unknown"
		}
		return units.FormatBytes(float64(b))
	}
	fmt.Fprintf(w, "version      %s\n", versionLine())
	fmt.Fprintf(w, "CPU          %s (%s, family %d model %d)\n", c.BrandName, c.VendorString, c.Family, c.Model)
	// What balloc may use is the affinity mask (runtime.NumCPU: taskset,
	// cpusets, Slurm's --cpus-per-task) and the Go runtime's GOMAXPROCS,
	// which Go lowers to a cgroup CPU quota; cpuid's counts are the chip's
	// (on a VM the host's topology, e.g. 254 cores on a 2-CPU guest), so
	// they come last and are named as such.
	fmt.Fprintf(w, "cores        %d usable (runtime.NumCPU: the CPUs this process may run on, the default --workers); GOMAXPROCS %d (at most the cgroup's CPU quota)\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "             the chip reports %d physical, %d logical (cpuid; on a VM, the host's); %s %s/%s\n",
		c.PhysicalCores, c.LogicalCores, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "caches       L1d %s, L1i %s, L2 %s, L3 %s; line %d B\n",
		kib(c.Cache.L1D), kib(c.Cache.L1I), kib(c.Cache.L2), kib(c.Cache.L3), c.CacheLine)
	var feats []string
	for _, f := range []cpuid.FeatureID{cpuid.SSE4, cpuid.POPCNT, cpuid.BMI1, cpuid.BMI2, cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.ASIMD} {
		if c.Supports(f) {
			feats = append(feats, f.String())
		}
	}
	fmt.Fprintf(w, "features     %s\n", strings.Join(feats, " "))
	if m := units.MemoryLimit(); m.Bytes > 0 {
		fmt.Fprintf(w, "memory       %v\n", m)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "kernels")
	fmt.Fprintln(w, "  rng        PCG32 (XSH-RR 64/32), portable Go, state held in registers; one stream per (seed, trial, lane)")
	fmt.Fprintln(w, "  bounded    Lemire multiply-shift on 32-bit outputs, exact (rejection on the rare slow path)")
	fmt.Fprintln(w, "  coins      exact Bernoulli(β) by lazy comparison with β's binary expansion")
	fmt.Fprintln(w, "  weights    exponential ziggurat (256 boxes, 64-bit draws)")
	fmt.Fprintf(w, "  loads      uint32 below 2^32 balls, uint64 from 2^32, float64 for random weights; up to %d bins\n", uint64(kernels.MaxBins))
	above := kernels.StagingAbove()
	fmt.Fprintf(w, "  staging    loops draw a block's samples ahead once the loads exceed %s (L2): from %s bins\n",
		units.FormatBytes(float64(above)), units.FormatCount(uint64(above/4+1)))
	fmt.Fprintln(w, "             with 32-bit loads; interleaved below. Same stream either way, so the same results.")
	if c.Cache.L3 > 0 {
		fmt.Fprintf(w, "  cache fit  32-bit loads stay in L3 up to %s bins; beyond, each sample is a DRAM access\n", units.FormatCount(uint64(c.Cache.L3/4)))
	}
	fmt.Fprintln(w, "  engines    direct (flat load array, one specialised loop per process);")
	fmt.Fprintf(w, "             histogram (bins per load, symmetric processes, up to %s bins)\n", pow2(hist.MaxBins))
	fmt.Fprintln(w, "  auto       the engine core's cost model estimates faster for the process, n and m (from")
	fmt.Fprintln(w, "             constants, not this machine, so the same everywhere; a run's header prints both")
	fmt.Fprintf(w, "             estimates), and histogram from %s bins, more than direct holds. At m/n = 10^4:\n", pow2(kernels.MaxBins+1))
	fmt.Fprintf(w, "             histogram from n = %s\n", core.AutoCrossovers(10_000))
	fmt.Fprintln(w, "  samplers   binomial: BTPE (inversion below np = 30); occupancy throws: Poissonised, exact correction")
	fmt.Fprintln(w, "\nprocesses")
	for _, p := range process.Entries() {
		fmt.Fprintf(w, "  %-*s %s\n", process.NameWidth(), p.Name, p.Summary)
	}
}

// pow2 writes a power of two as 2^k, anything else as a count.
func pow2(n uint64) string {
	if n != 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros64(n))
	}
	return units.FormatCount(n)
}
