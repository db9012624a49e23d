package main

import (
	"os/exec"
	"time"
)

// running is a started balloc process, waited for in the background.
type running struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited
	err  error         // cmd.Wait's, once done is closed
}

// start starts cmd and waits for it in the background.
func start(cmd *exec.Cmd) (*running, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &running{cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// wait waits for the process to exit and returns cmd.Wait's error.
func (p *running) wait() error {
	<-p.done
	return p.err
}

// until polls cond every 2 ms until it holds, or the process has exited
// with cond still false; it reports whether cond held. No deadline: a busy
// machine only makes the wait longer, and a process that hangs is go
// test's -timeout to report.
func (p *running) until(cond func() bool) bool {
	for {
		if cond() {
			return true
		}
		select {
		case <-p.done:
			return cond()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
