// Package progress shows a long run's progress on stderr, as the command
// does: a redrawn bar on a terminal, and anywhere else (a Slurm or nohup
// log, CI) a plain line every LineInterval with what is done, the rate and
// the time left, so that a log shows a live run.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// LineInterval is how often a run whose stderr is not a terminal
// (a Slurm or nohup log, CI) writes a progress line. A variable so that a
// test can shorten it.
var LineInterval = 30 * time.Second

// Form is how a run shows its progress on stderr.
type Form uint8

const (
	None Form = iota // --progress never
	Auto             // a bar on a terminal, else a line every LineInterval
	Bar              // a bar, terminal or not (--progress always)
)

// Want reads a --progress value (run, sweep, concurrent) for stderr w:
// auto draws a bar when w is a terminal and otherwise, when w is a file or
// pipe, writes a plain line every LineInterval (a Slurm or nohup log
// shows a live run);
// always draws the bar wherever w goes (a pipe through tee to a terminal);
// never shows nothing.
func Want(progress string, w io.Writer) (Form, error) {
	switch progress {
	case "auto":
		f, ok := w.(*os.File)
		switch {
		case !ok: // a Go program's or a test's buffer: no log to keep alive
			return None, nil
		case term.IsTerminal(int(f.Fd())):
			return Bar, nil
		}
		return Auto, nil
	case "always":
		return Bar, nil
	case "never":
		return None, nil
	}
	return None, fmt.Errorf("--progress %q: want auto, always or never", progress)
}

// Meter is the progress balloc shows on stderr: a redrawn bar on a
// terminal, or plain lines (lineMeter) anywhere else. Its methods may be
// called from any goroutine.
type Meter struct {
	bar   *progressbar.ProgressBar
	lines *lineMeter
}

// New is the progress of total units (balls or trials) on w, in form
// (Auto or Bar).
func New(form Form, w io.Writer, total uint64, unit, desc string) *Meter {
	if form != Bar {
		return &Meter{lines: startLines(w, total, unit, desc, time.Now, time.NewTicker(LineInterval))}
	}
	return &Meter{bar: progressbar.NewOptions64(int64(min(total, 1<<62)),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionFullWidth(),
	)}
}

// Balls is the progress of a count of balls on w: done of total, the
// rate and the time left.
func Balls(form Form, w io.Writer, total uint64, desc string) *Meter {
	return New(form, w, total, "balls", desc)
}

// Trials is the progress of a count of trials on w (a sweep).
func Trials(form Form, w io.Writer, total int, desc string) *Meter {
	return New(form, w, uint64(max(total, 0)), "trials", desc)
}

// Add64 counts n more units done.
func (m *Meter) Add64(n int64) error {
	if m.lines != nil {
		m.lines.done.Add(uint64(n))
		return nil
	}
	return m.bar.Add64(n)
}

// Add counts n more units done.
func (m *Meter) Add(n int) error { return m.Add64(int64(n)) }

// Clear removes the bar, or stops the lines without a last one (an
// interrupted run, whose own line follows).
func (m *Meter) Clear() error {
	if m.lines != nil {
		m.lines.stop(false)
		return nil
	}
	return m.bar.Clear()
}

// Finish ends the progress: the bar is cleared; the lines end with one
// saying what was done, if any line came before it (a run shorter than the
// interval writes nothing).
func (m *Meter) Finish() error {
	if m.lines != nil {
		m.lines.stop(true)
		return nil
	}
	return m.bar.Finish()
}

// lineMeter writes a line on each tick: units done of the total, the rate
// since the start and the time left at that rate. Its clock and ticks are
// given, so a test drives them without waiting.
type lineMeter struct {
	w           io.Writer
	total       uint64
	unit, desc  string
	now         func() time.Time
	start       time.Time
	done        atomic.Uint64
	quit, ended chan struct{}
	once        sync.Once
	printed     bool // a line was written (read after ended is closed)
}

// startLines starts a lineMeter that writes a line on each of t's ticks.
func startLines(w io.Writer, total uint64, unit, desc string, now func() time.Time, t *time.Ticker) *lineMeter {
	l := newLines(w, total, unit, desc, now)
	go l.loop(t.C, t.Stop)
	return l
}

func newLines(w io.Writer, total uint64, unit, desc string, now func() time.Time) *lineMeter {
	return &lineMeter{w: w, total: total, unit: unit, desc: desc, now: now, start: now(),
		quit: make(chan struct{}), ended: make(chan struct{})}
}

// loop writes a line per tick until stop.
func (l *lineMeter) loop(tick <-chan time.Time, stopTicks func()) {
	defer close(l.ended)
	defer stopTicks()
	for {
		select {
		case <-l.quit:
			return
		case <-tick:
			l.tick(l.now())
		}
	}
}

// tick writes the line at now.
func (l *lineMeter) tick(now time.Time) {
	fmt.Fprintln(l.w, l.line(l.done.Load(), now))
	l.printed = true
}

// stop ends the loop and waits for it; with last, a closing line follows
// if the loop wrote any. Only the first call does anything.
func (l *lineMeter) stop(last bool) {
	l.once.Do(func() {
		close(l.quit)
		<-l.ended
		if last && l.printed {
			fmt.Fprintln(l.w, l.closing(l.done.Load(), l.now()))
		}
	})
}

// line is a progress line at now with done units done, e.g.
// "balloc: 3 trials: 1.2e9 of 3e9 balls (40.0%), 4.00e7 balls/s, 30s elapsed, about 45s left".
func (l *lineMeter) line(done uint64, now time.Time) string {
	el := now.Sub(l.start)
	var b strings.Builder
	fmt.Fprintf(&b, "balloc: %s: %s of %s %s", l.desc, approx(float64(done)), approx(float64(l.total)), l.unit)
	if l.total > 0 {
		fmt.Fprintf(&b, " (%.1f%%)", 100*float64(done)/float64(l.total))
	}
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	fmt.Fprintf(&b, ", %s %s/s, %s elapsed", approx(rate), l.unit, roundDuration(el))
	switch {
	case done >= l.total:
		b.WriteString(", finishing")
	case rate > 0:
		left := time.Duration(float64(l.total-done) / rate * float64(time.Second))
		fmt.Fprintf(&b, ", about %s left", roundDuration(left))
	default:
		b.WriteString(", time left unknown")
	}
	return b.String()
}

// closing is the last line: what was done, in how long, at what rate.
func (l *lineMeter) closing(done uint64, now time.Time) string {
	el := now.Sub(l.start)
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	return fmt.Sprintf("balloc: %s: done, %s %s in %s, %s %s/s", l.desc, approx(float64(done)), l.unit, roundDuration(el), approx(rate), l.unit)
}

// approx writes a count or rate to three significant digits, as people
// write them: 999, 1.23e4, 4.5e9.
func approx(x float64) string {
	if x < 1000 {
		return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
	}
	e := int(math.Floor(math.Log10(x)))
	m := math.Round(x/math.Pow(10, float64(e))*100) / 100
	if m >= 10 { // 9.996e3 rounds to 1e4
		m, e = 1, e+1
	}
	return strconv.FormatFloat(m, 'f', -1, 64) + "e" + strconv.Itoa(e)
}

// roundDuration rounds d to seconds (to minutes past an hour).
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}
