package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// wantBar reads a --progress value (run, sweep, concurrent): whether a bar
// is drawn on w. auto draws one when w is a terminal.
func wantBar(progress string, w io.Writer) (bool, error) {
	switch progress {
	case "auto":
		if f, ok := w.(*os.File); ok {
			return term.IsTerminal(int(f.Fd())), nil
		}
		return false, nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("--progress %q: want auto, always or never", progress)
}

// newBallsBar is the bar balloc draws over a count of balls on w: done of
// total, the rate and the time left, cleared when done.
func newBallsBar(w io.Writer, total uint64, desc string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(int64(min(total, 1<<62)),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetItsString("balls"),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)
}
