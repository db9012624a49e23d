package core

import "github.com/balloc/balloc/core/units"

// ParseCount reads a count as users write it: 1000000, 1_000_000, 1e6,
// 2.5e6, 10^6 (see units.ParseCount).
func ParseCount(s string) (uint64, error) { return units.ParseCount(s) }

// FormatCount writes a count compactly (see units.FormatCount).
func FormatCount(n uint64) string { return units.FormatCount(n) }

// FormatBytes writes a size in bytes with a binary unit (see units.FormatBytes).
func FormatBytes(b float64) string { return units.FormatBytes(b) }
