//go:build !race

#include "textflag.h"

// func shardStage2Asm(cells *atomic.Uint32, idx *uint32, count int, mul, w, sink uint64, foreign *uint32, mine *atomic.Uint64, placed uint64) (nf int)
//
// shardStage2 (shardstage.go) on the packed layout. Per ball, what does
// not wait on the loads comes first: the owner of either bin (⌊b·mul/2^32⌋)
// and its target, the bin if the owner is w and the sink if not. After the
// loads one CMPL and two CMOVs choose, and the add, the foreign entry and
// the count follow; stores are plain MOVs, as storeOwned's.
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
