#include "textflag.h"

// func tscOrdered() uint64
// LFENCE before RDTSC: the stamp is read after every earlier instruction
// has completed (a locked add before it has taken effect); LFENCE after it:
// no later instruction (the next read stamp) starts before it.
TEXT ·tscOrdered(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func cpuidLeaf(leaf uint32) (eax, edx uint32)
TEXT ·cpuidLeaf(SB), NOSPLIT, $0-16
	MOVL leaf+0(FP), AX
	XORL CX, CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL DX, edx+12(FP)
	RET

// func tscRead() uint64
// RDTSC then LFENCE: no later instruction (the first load of a bin) starts
// before the stamp. Earlier ones may finish after it, which only makes the
// window it opens longer; the worker's previous commit stamp (tscOrdered)
// is before it.
TEXT ·tscRead(SB), NOSPLIT, $0-8
	RDTSC
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

