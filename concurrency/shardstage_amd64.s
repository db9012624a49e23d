//go:build !race

#include "textflag.h"

// func shardStage2Asm(cells *atomic.Uint32, idx *uint32, count int, mul, w, sink uint64, foreign *uint32, mine *atomic.Uint64, placed uint64) (nf int)
//
// shardStage2 (shardstage.go) on the packed layout. A first pass
// prefetches (PREFETCHT0) every bin the stage's draws name, so that all of
// the stage's misses are in flight at once rather than as many as the
// loop's window holds (two-choice, n = 2^20, 2 workers on 2 cores, 18 runs
// interleaved: median 2.06e8 -> 2.32e8 balls/s; one worker 1.56e8 ->
// 1.65e8). Then per ball, what does not wait on the loads comes first: the
// owner of either bin (⌊b·mul/2^32⌋) and its target, the bin if the owner
// is w and the sink if not. After the loads one CMPL and two CMOVs choose,
// and the add, the foreign entry and the count follow; stores are plain
// MOVs, as storeOwned's.
TEXT ·shardStage2Asm(SB), NOSPLIT, $0-80
	MOVQ cells+0(FP), BX
	MOVQ idx+8(FP), CX
	MOVQ count+16(FP), DX
	LEAQ (CX)(DX*8), DX       // end of the draws
	MOVQ foreign+48(FP), R8
	MOVQ mine+56(FP), R12
	MOVQ placed+64(FP), R13   // placed + balls done so far; the count is R13 - R9
	XORQ R9, R9               // nf
	CMPQ CX, DX
	JEQ  done
	MOVQ CX, R10
pre:
	MOVL (R10), SI
	MOVL 4(R10), DI
	PREFETCHT0 (BX)(SI*4)
	PREFETCHT0 (BX)(DI*4)
	ADDQ $8, R10
	CMPQ R10, DX
	JNE  pre

loop:
	MOVL (CX), SI             // i
	MOVL 4(CX), DI            // j
	MOVQ SI, AX
	IMULQ mul+24(FP), AX
	SHRQ $32, AX
	MOVQ sink+40(FP), R10     // target for i
	CMPQ AX, w+32(FP)
	CMOVQEQ SI, R10
	MOVQ DI, AX
	IMULQ mul+24(FP), AX
	SHRQ $32, AX
	MOVQ sink+40(FP), R11     // target for j
	CMPQ AX, w+32(FP)
	CMOVQEQ DI, R11
	MOVL (BX)(DI*4), AX       // load of j
	CMPL AX, (BX)(SI*4)       // against the load of i: carry if strictly less
	CMOVLCS DI, SI
	CMOVQCS R11, R10
	INCL (BX)(R10*4)          // the add, to the bin or the sink
	MOVL SI, (R8)(R9*4)       // foreign[nf] = the chosen bin
	XORL AX, AX
	CMPQ R10, sink+40(FP)
	SETEQ AX
	ADDQ AX, R9               // nf++ for a foreign one
	INCQ R13
	MOVQ R13, AX
	SUBQ R9, AX
	MOVQ AX, (R12)            // this worker's count
	ADDQ $8, CX
	CMPQ CX, DX
	JNE  loop

done:
	MOVQ R9, nf+72(FP)
	RET

// func prefetchBins(cells *atomic.Uint32, b *uint32, count int)
//
// PREFETCHW the bins b[0:count] name (each masked to 31 bits, so a
// measured ball's data words only waste a prefetch), before their owner's
// adds: each line is asked for in the exclusive state at once, rather than
// read shared from the core that decided (it has just read both bins) and
// then taken from it again by the store. 0F 0D /1, which the Go assembler
// does not name; a hint, which never faults (a NOP where unsupported).
// Two workers, as above: median 1.72e8 -> 1.96e8 balls/s.
TEXT ·prefetchBins(SB), NOSPLIT, $0-24
	MOVQ cells+0(FP), BX
	MOVQ b+8(FP), CX
	MOVQ count+16(FP), DX
	LEAQ (CX)(DX*4), DX
	CMPQ CX, DX
	JEQ  pdone
ploop:
	MOVL (CX), SI
	ANDL $0x7fffffff, SI
	LEAQ (BX)(SI*4), AX
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08 // PREFETCHW (AX)
	ADDQ $4, CX
	CMPQ CX, DX
	JNE  ploop
pdone:
	RET
