#include "textflag.h"

// func prefetchIdx(base unsafe.Pointer, idx *uint32, count int, shift uint64)
//
// PREFETCHT0 base + idx[q]<<shift for q < count.
TEXT ·prefetchIdx(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), BX
	MOVQ idx+8(FP), DI
	MOVQ count+16(FP), DX
	MOVQ shift+24(FP), CX
	LEAQ (DI)(DX*4), DX
	CMPQ DI, DX
	JEQ  done
loop:
	MOVL (DI), SI
	SHLQ CX, SI
	PREFETCHT0 (BX)(SI*1)
	ADDQ $4, DI
	CMPQ DI, DX
	JNE  loop
done:
	RET
