// Command balloc simulates balanced allocations (balls into bins).
//
//	balloc run --process NAME[,NAME...] [process flags] --bins N --balls M [flags]
//	balloc info
//	balloc version            (or --version)
//	balloc completion bash|zsh|fish
//
// Bad input is reported on one line of stderr, before any work starts, with
// exit status 2; a failure during the work exits with status 1. See the
// README for the flags and the output fields.
package main
