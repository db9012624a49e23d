package kernels

import "unsafe"

// prefetchIdx issues PREFETCHT0 for base + idx[q]<<shift, q < count
// (prefetch_amd64.s).
//
//go:noescape
func prefetchIdx(base unsafe.Pointer, idx *uint32, count int, shift uint64)
