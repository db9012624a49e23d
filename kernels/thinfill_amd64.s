#include "textflag.h"

// func fillPass32(loads *uint32, n uint64, s, inc uint64, idx *[64]uint32, want int, lim uint64) (valid int, m uint64)
//
// fillPassGo's loop (thinwindow.go) for uint32 loads: for q < want, the
// PCG32 output of s times n, stop at a low half below n, else idx[q] = the
// high half and bit 63 of m, shifted in from the top, = loads[idx[q]] < lim.
TEXT ·fillPass32(SB), NOSPLIT, $0-72
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), BX
	MOVQ idx+32(FP), R10
	MOVQ want+40(FP), R14
	MOVQ lim+48(FP), R13
	MOVQ $6364136223846793005, R9
	XORQ R11, R11
	XORQ R12, R12
	CMPQ R11, R14
	JGE  done32

loop32:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  BX, AX
	CMPL  DX, R8
	JCS   done32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, R13
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, R14
	JLT   loop32

done32:
	MOVQ R11, valid+56(FP)
	MOVQ R12, m+64(FP)
	RET

// func fillPass64(loads *uint64, n uint64, s, inc uint64, idx *[64]uint32, want int, lim uint64) (valid int, m uint64)
//
// fillPass32 for uint64 loads.
TEXT ·fillPass64(SB), NOSPLIT, $0-72
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), BX
	MOVQ idx+32(FP), R10
	MOVQ want+40(FP), R14
	MOVQ lim+48(FP), R13
	MOVQ $6364136223846793005, R9
	XORQ R11, R11
	XORQ R12, R12
	CMPQ R11, R14
	JGE  done64

loop64:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  BX, AX
	CMPL  DX, R8
	JCS   done64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, R13
	RCRQ  $1, R12
	INCQ  R11
	CMPQ  R11, R14
	JLT   loop64

done64:
	MOVQ R11, valid+56(FP)
	MOVQ R12, m+64(FP)
	RET

// func fillPass2_32(loads *uint32, n uint64, s, inc uint64, idx *[64]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)
//
// fillPass32 with a second limit's mask from the same loads (fillPass2Go).
TEXT ·fillPass2_32(SB), NOSPLIT, $0-88
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), BX
	MOVQ idx+32(FP), R10
	MOVQ lim1+48(FP), R13
	MOVQ $6364136223846793005, R9
	XORQ R11, R11
	XORQ R12, R12
	XORQ R14, R14
	CMPQ R11, want+40(FP)
	JGE  done2_32

loop2_32:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  BX, AX
	CMPL  DX, R8
	JCS   done2_32
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVL  (DI)(DX*4), SI
	CMPQ  SI, R13
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JLT   loop2_32

done2_32:
	MOVQ R11, valid+64(FP)
	MOVQ R12, m1+72(FP)
	MOVQ R14, m2+80(FP)
	RET

// func fillPass2_64(loads *uint64, n uint64, s, inc uint64, idx *[64]uint32, want int, lim1, lim2 uint64) (valid int, m1, m2 uint64)
//
// fillPass64 with a second limit's mask from the same loads (fillPass2Go).
TEXT ·fillPass2_64(SB), NOSPLIT, $0-88
	MOVQ loads+0(FP), DI
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), AX
	MOVQ inc+24(FP), BX
	MOVQ idx+32(FP), R10
	MOVQ lim1+48(FP), R13
	MOVQ $6364136223846793005, R9
	XORQ R11, R11
	XORQ R12, R12
	XORQ R14, R14
	CMPQ R11, want+40(FP)
	JGE  done2_64

loop2_64:
	MOVQ  AX, DX
	SHRQ  $18, DX
	XORQ  AX, DX
	SHRQ  $27, DX
	MOVQ  AX, CX
	SHRQ  $59, CX
	RORL  CX, DX
	IMULQ R8, DX
	IMULQ R9, AX
	ADDQ  BX, AX
	CMPL  DX, R8
	JCS   done2_64
	SHRQ  $32, DX
	MOVL  DX, (R10)(R11*4)
	MOVQ  (DI)(DX*8), SI
	CMPQ  SI, R13
	RCRQ  $1, R12
	CMPQ  SI, lim2+56(FP)
	RCRQ  $1, R14
	INCQ  R11
	CMPQ  R11, want+40(FP)
	JLT   loop2_64

done2_64:
	MOVQ R11, valid+64(FP)
	MOVQ R12, m1+72(FP)
	MOVQ R14, m2+80(FP)
	RET
