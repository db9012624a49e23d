// Package units reads and writes the counts and sizes users type and read:
// 1e6, 1_000_000, 10^6; 1.5 GiB. It imports nothing of balloc, so every
// package that parses user input can share it.
package units
