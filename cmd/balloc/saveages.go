package main

import (
	"fmt"
	"io"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/internal/files"
)

// saveAges writes a run's age sequence for --delay replay --replay into
// its output (checked before the run: files.Output).
func saveAges(out *files.Output, ages []uint32) error {
	if err := out.Write(func(w io.Writer) error { return process.WriteReplay(w, ages) }); err != nil {
		return fmt.Errorf("--save-ages %s: %v", out.Path(), err)
	}
	return nil
}
