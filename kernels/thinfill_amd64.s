#include "textflag.h"

// The fills of thinwindow.go's windows (fillPassGo, fillPass2Go) for amd64.
// For q < want: the PCG32 output of the stream's q-th state times n; stop
// at a low half below n; else idx[q] = the high half, and bit 63 of each
// mask, shifted in from the top, = loads[idx[q]] < lim (an unsigned
// compare, CF, rotated in by RCR). The states run in two lanes, even and
// odd positions, each stepped two positions (M², (M + 1)·inc) at a time,
// so the multiply-add chain costs half as much a position.

// func fillPass32(loads *uint32, n uint64, s, inc uint64, idx *[64]uint32, want int, lim uint64) (valid int, m uint64)
TEXT ·fillPass32(SB), NOSPLIT, $0-72
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), R13
	MOVQ idx+32(FP), R10
	MOVQ lim+48(FP), R14
	MOVQ $6364136223846793005, R9
	MOVQ AX, BX
	IMULQ R9, BX
	ADDQ R13, BX   // BX: the odd lane, one step on
	LEAQ 1(R9), DX
	IMULQ DX, R13  // R13: (M + 1)·inc, two steps' increment
	IMULQ R9, R9   // R9: M², two steps' multiplier
	XORQ R11, R11
	XORQ R12, R12
	CMPQ R11, want+40(FP)
	JGE  done_fillPass32

loop_fillPass32:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  R13, AX
	CMPL  DX, R8
	JCS   done_fillPass32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, R14
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass32
	MOVQ  BX, DX
	SHRQ  $18, DX
	XORQ  BX, DX
	SHRQ  $27, DX
	MOVQ  BX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, BX
	ADDQ  R13, BX
	CMPL  DX, R8
	JCS   done_fillPass32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, R14
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass32
	JMP   loop_fillPass32

done_fillPass32:
	MOVQ R11, valid+56(FP)
	MOVQ R12, m+64(FP)
	RET

// func fillPass64(loads *uint64, n uint64, s, inc uint64, idx *[64]uint32, want int, lim uint64) (valid int, m uint64)
TEXT ·fillPass64(SB), NOSPLIT, $0-72
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), R13
	MOVQ idx+32(FP), R10
	MOVQ lim+48(FP), R14
	MOVQ $6364136223846793005, R9
	MOVQ AX, BX
	IMULQ R9, BX
	ADDQ R13, BX   // BX: the odd lane, one step on
	LEAQ 1(R9), DX
	IMULQ DX, R13  // R13: (M + 1)·inc, two steps' increment
	IMULQ R9, R9   // R9: M², two steps' multiplier
	XORQ R11, R11
	XORQ R12, R12
	CMPQ R11, want+40(FP)
	JGE  done_fillPass64

loop_fillPass64:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  R13, AX
	CMPL  DX, R8
	JCS   done_fillPass64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, R14
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass64
	MOVQ  BX, DX
	SHRQ  $18, DX
	XORQ  BX, DX
	SHRQ  $27, DX
	MOVQ  BX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, BX
	ADDQ  R13, BX
	CMPL  DX, R8
	JCS   done_fillPass64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, R14
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass64
	JMP   loop_fillPass64

done_fillPass64:
	MOVQ R11, valid+56(FP)
	MOVQ R12, m+64(FP)
	RET

// func fillPass2_32(loads *uint32, n uint64, s, inc uint64, idx *[64]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)
TEXT ·fillPass2_32(SB), NOSPLIT, $0-88
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), R13
	MOVQ idx+32(FP), R10
	MOVQ $6364136223846793005, R9
	MOVQ AX, BX
	IMULQ R9, BX
	ADDQ R13, BX   // BX: the odd lane, one step on
	LEAQ 1(R9), DX
	IMULQ DX, R13  // R13: (M + 1)·inc, two steps' increment
	IMULQ R9, R9   // R9: M², two steps' multiplier
	XORQ R11, R11
	XORQ R12, R12
	XORQ R14, R14
	CMPQ R11, want+40(FP)
	JGE  done_fillPass2_32

loop_fillPass2_32:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  R13, AX
	CMPL  DX, R8
	JCS   done_fillPass2_32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, lim1+48(FP)
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass2_32
	MOVQ  BX, DX
	SHRQ  $18, DX
	XORQ  BX, DX
	SHRQ  $27, DX
	MOVQ  BX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, BX
	ADDQ  R13, BX
	CMPL  DX, R8
	JCS   done_fillPass2_32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, lim1+48(FP)
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass2_32
	JMP   loop_fillPass2_32

done_fillPass2_32:
	MOVQ R11, valid+64(FP)
	MOVQ R12, m1+72(FP)
	MOVQ R14, m2+80(FP)
	RET

// func fillPass2_64(loads *uint64, n uint64, s, inc uint64, idx *[64]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)
TEXT ·fillPass2_64(SB), NOSPLIT, $0-88
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), R13
	MOVQ idx+32(FP), R10
	MOVQ $6364136223846793005, R9
	MOVQ AX, BX
	IMULQ R9, BX
	ADDQ R13, BX   // BX: the odd lane, one step on
	LEAQ 1(R9), DX
	IMULQ DX, R13  // R13: (M + 1)·inc, two steps' increment
	IMULQ R9, R9   // R9: M², two steps' multiplier
	XORQ R11, R11
	XORQ R12, R12
	XORQ R14, R14
	CMPQ R11, want+40(FP)
	JGE  done_fillPass2_64

loop_fillPass2_64:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  R13, AX
	CMPL  DX, R8
	JCS   done_fillPass2_64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, lim1+48(FP)
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass2_64
	MOVQ  BX, DX
	SHRQ  $18, DX
	XORQ  BX, DX
	SHRQ  $27, DX
	MOVQ  BX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, BX
	ADDQ  R13, BX
	CMPL  DX, R8
	JCS   done_fillPass2_64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, lim1+48(FP)
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JGE   done_fillPass2_64
	JMP   loop_fillPass2_64

done_fillPass2_64:
	MOVQ R11, valid+64(FP)
	MOVQ R12, m1+72(FP)
	MOVQ R14, m2+80(FP)
	RET

// func quantWalk32(w *quantWalk)
//
// quantWalkGo (kthinning.go) for uint32 loads: the balls of one window of
// kThinningQuantile3, until the window ends, a kept bin was raised past
// its limit, the call's last ball, a boundary's move or a ball that would
// reach past the ring (exit = quantGrow, nothing of it done). The walk's
// state is w's, at the offsets of quantWalk.
TEXT ·quantWalk32(SB), NOSPLIT, $0-8
	MOVQ w+0(FP), DI
	MOVQ 0(DI), SI    // loads
	MOVQ 8(DI), R8    // idx
	MOVQ 16(DI), R9   // cnt
	MOVQ 24(DI), R10  // mask
	MOVQ 32(DI), R11  // lo
	MOVQ 96(DI), R12  // a
	MOVQ 104(DI), R13 // c
	MOVQ 112(DI), R14 // p
	MOVQ 136(DI), R15 // maxLoad
	MOVQ $0, 144(DI)

quantLoop:
	MOVQ  R12, CX
	NOTQ  CX
	ANDQ  $1, CX
	MOVQ  R13, DX
	NOTQ  DX
	ANDQ  CX, DX
	ADDQ  DX, CX            // t
	LEAQ  (R14)(CX*1), DX   // p + t
	CMPQ  DX, 120(DI)
	JGE   quantDone         // past the window's valid positions
	MOVL  (R8)(DX*4), DX    // i
	MOVL  (SI)(DX*4), AX    // v
	CMPQ  AX, 72(DI)(CX*8)
	JCC   quantDone         // v ≥ keep[t]: raised past its limit
	LEAQ  1(AX), BX
	SUBQ  R11, BX
	CMPQ  BX, R10
	JHI   quantGrowing      // v + 1 − lo > mask
	INCQ  CX
	ADDQ  CX, R14
	SHRQ  CX, R12
	SHRQ  CX, R13
	LEAQ  1(AX), BX
	MOVL  BX, (SI)(DX*4)
	CMPQ  BX, R15
	CMOVQHI BX, R15
	MOVQ  AX, DX
	ANDQ  R10, DX
	DECL  (R9)(DX*4)
	ANDQ  R10, BX
	INCL  (R9)(BX*4)
	XORL  DX, DX
	XORL  BX, BX
	CMPQ  AX, 40(DI)
	SETEQ DL
	CMPQ  AX, 48(DI)
	SETEQ BL
	SUBQ  DX, 56(DI)
	SETEQ DL
	SUBQ  BX, 64(DI)
	SETEQ BL
	ORL   BX, DX
	DECQ  128(DI)
	JEQ   quantDone
	TESTL DX, DX
	JEQ   quantLoop
	JMP   quantDone

quantGrowing:
	MOVQ $1, 144(DI)

quantDone:
	MOVQ R12, 96(DI)
	MOVQ R13, 104(DI)
	MOVQ R14, 112(DI)
	MOVQ R15, 136(DI)
	RET
