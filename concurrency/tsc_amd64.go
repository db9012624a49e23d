package concurrency

import "errors"

// tscOrdered reads the time-stamp counter, fenced on both sides
// (tsc_amd64.s): after every earlier instruction of this goroutine, before
// any later one.
//
//go:noescape
func tscOrdered() uint64

// tscRead reads the time-stamp counter before any later instruction of this
// goroutine (tsc_amd64.s): a read stamp.
//
//go:noescape
func tscRead() uint64

// cpuidLeaf executes CPUID with EAX = leaf, ECX = 0.
//
//go:noescape
func cpuidLeaf(leaf uint32) (eax, edx uint32)

// checkTSC reports whether the time-stamp counter can order commits of
// different cores: it must be invariant (CPUID 0x80000007 EDX bit 8, "TSC
// invariant" in Intel's SDM vol. 2 and AMD's APM vol. 3: it runs at a constant
// rate in every power state, and the kernel keeps the cores' counters in
// step). github.com/klauspost/cpuid/v2 (v2.4.2) reads that leaf but does not
// expose the bit, so it is read here.
func checkTSC() error {
	if max, _ := cpuidLeaf(0x80000000); max < 0x80000007 {
		return errors.New("the CPU does not report whether its time-stamp counter is invariant (no CPUID leaf 0x80000007)")
	}
	if _, edx := cpuidLeaf(0x80000007); edx&(1<<8) == 0 {
		return errors.New("the CPU's time-stamp counter is not invariant (CPUID 0x80000007 EDX bit 8 clear), so stamps of different cores cannot be ordered")
	}
	return nil
}
