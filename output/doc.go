// Package output writes trials' results in balloc's per-trial formats, as
// they arrive: JSON (one array), JSON Lines (one object a line) and CSV
// (one row a checkpoint and one for the end of each trial), the formats of
// `balloc run --format` and of sweeps' results files. A Go program that
// runs trials through core/engine writes them with a Stream, byte for byte
// as the command does.
//
// The blocks only some processes report (result.Extra) are written through
// their kinds: a CSV carries a kind's columns when a process of the run
// declares it (process.Entry.Reports), so the header is fixed before the
// first trial ends; this package names no process.
//
// Table is balloc run's table format: it keeps a summary per spec (never
// the trials) and writes the gap, loads and balls/s per spec, the extras'
// blocks, the tables of balls that leave, the gap's distribution and, with
// theory, the fluid limit (Fluids) beside the simulated occupancy.
package output
