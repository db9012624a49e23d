package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestProgressLines(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLines(&out, 3_000_000_000, "balls", "3 trials", clock.now)
	go l.loop(nil, func() {}) // ticks by hand below, on this goroutine

	clock.t = clock.t.Add(30 * time.Second)
	l.done.Add(1_200_000_000)
	l.tick(clock.t)
	clock.t = clock.t.Add(30 * time.Second)
	l.done.Add(1_200_000_000)
	l.tick(clock.t)
	clock.t = clock.t.Add(15 * time.Second)
	l.done.Add(600_000_000)
	l.stop(true)
	l.stop(true) // a second stop (Clear after an interrupt, then Finish) writes nothing

	want := []string{
		"balloc: 3 trials: 1.2e9 of 3e9 balls (40.0%), 4e7 balls/s, 30s elapsed, about 45s left",
		"balloc: 3 trials: 2.4e9 of 3e9 balls (80.0%), 4e7 balls/s, 1m0s elapsed, about 15s left",
		"balloc: 3 trials: done, 3e9 balls in 1m15s, 4e7 balls/s",
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run shorter than the interval writes nothing, not even a closing line;
// Clear (an interrupt) writes no closing line.
func TestProgressLinesQuiet(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(0, 0)}
	l := newLines(&out, 100, "trials", "sweep", clock.now)
	go l.loop(nil, func() {})
	l.done.Add(100)
	l.stop(true)
	if out.Len() != 0 {
		t.Errorf("a run shorter than the interval wrote %q", out.String())
	}

	l = newLines(&out, 100, "trials", "sweep", clock.now)
	go l.loop(nil, func() {})
	l.tick(clock.t) // no time has passed: no rate, no estimate
	l.stop(false)
	if got, want := out.String(), "balloc: sweep: 0 of 100 trials (0.0%), 0 trials/s, 0s elapsed, time left unknown\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestApprox(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 12: "12", 999.4: "999.4", 1000: "1e3", 1234: "1.23e3", 9996: "1e4",
		3.14159e8: "3.14e8", 4.5e9: "4.5e9", 18446744073709551615: "1.84e19",
	} {
		if got := approx(x); got != want {
			t.Errorf("approx(%g) = %q, want %q", x, got, want)
		}
	}
}

func TestWantBar(t *testing.T) {
	log, err := os.Create(filepath.Join(t.TempDir(), "log.txt")) // a file, not a terminal
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for v, want := range map[string]Form{"auto": Auto, "always": Bar, "never": None} {
		if got, err := Want(v, log); err != nil || got != want {
			t.Errorf("Want(%q) on a file = %v, %v; want %v", v, got, err, want)
		}
	}
	if got, _ := Want("auto", &bytes.Buffer{}); got != None {
		t.Errorf("Want(auto) on a buffer = %v, want none", got)
	}
}
