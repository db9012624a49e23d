package kernels

// Load is the integer type of a bin's load in the unit-weight loops. Callers
// pick uint32 when the number of balls is below 2^32 (no bin can then
// overflow) and uint64 otherwise; the loops are instantiated for both.
type Load interface{ ~uint32 | ~uint64 }

// MaxBins is the largest number of bins the flat-array loops accept: bin
// indices are drawn as 32-bit Lemire products.
const MaxBins = 1<<32 - 1

// loadValue is any load representation, integer or real (weighted balls).
type loadValue interface{ Load | ~float64 }
