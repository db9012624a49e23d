package main

import (
	"fmt"
	"io"

	"github.com/balloc/balloc/internal/progress"
)

// comparisonBar draws the progress of the sequential runs balloc concurrent
// sets beside one concurrent run, as balloc run draws its trials' (run.go):
// balls done of the runs' total, the rate and the time left, on stderr,
// cleared when the runs are done (or, when stderr is not a terminal, a line
// every 30 s: internal/progress). A nil *comparisonBar draws nothing.
type comparisonBar struct {
	form    progress.Form
	w       io.Writer
	workers int
	trial   uint64
	bar     *progress.Meter
}

// start begins a bar of total balls and returns the callback the engine
// reports its balls to (engine.RunTrial's progress).
func (b *comparisonBar) start(total uint64) func(uint64) {
	if b == nil {
		return nil
	}
	b.bar = progress.Balls(b.form, b.w, total, fmt.Sprintf("comparisons, %d workers, trial %d", b.workers, b.trial))
	return func(n uint64) { _ = b.bar.Add64(int64(n)) }
}

// finish clears the bar.
func (b *comparisonBar) finish() {
	if b == nil || b.bar == nil {
		return
	}
	_ = b.bar.Finish()
	_ = b.bar.Clear()
	b.bar = nil
}
