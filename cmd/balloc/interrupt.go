package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
)

// interruptExit is the exit status of a run stopped by Ctrl-C: 128 + SIGINT,
// as a shell reports a process the signal killed.
const interruptExit = 130

// interrupt answers Ctrl-C (SIGINT) during a long command: it waits for the
// write in progress (callers hold mu around each write, so the files stay
// whole and the count is that of what was written), prints line() as one
// stderr line, and exits 130. Go's default would exit 2 without a word,
// which reads as bad input and says nothing of what was kept.
type interrupt struct {
	mu   sync.Mutex
	sig  chan os.Signal
	done chan struct{}
}

func onInterrupt(stderr io.Writer, line func() string) *interrupt {
	in := &interrupt{sig: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(in.sig, os.Interrupt)
	go func() {
		select {
		case <-in.sig:
			in.mu.Lock() // held to the exit: no write starts after the count is read
			fmt.Fprintf(stderr, "%s\n", line())
			os.Exit(interruptExit)
		case <-in.done:
		}
	}()
	return in
}

// stop restores Go's handling of SIGINT once the work is over.
func (in *interrupt) stop() {
	signal.Stop(in.sig)
	close(in.done)
}
