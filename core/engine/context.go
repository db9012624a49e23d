package engine

import (
	"context"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
)

// stopTrial is the panic value with which RunTrialContext's progress
// callback unwinds a trial whose context is done.
type stopTrial struct{}

// RunTrialContext is RunTrial that stops when ctx is done: it looks at ctx
// before the trial and after each chunk of balls (where progress is
// called: a few milliseconds of work, never per ball), and a trial it
// stops returns no Result and ctx.Err().
//
// It stops a trial by panicking from the progress callback and recovering
// here. The engines call progress on the trial's own goroutine between
// chunks, holding no lock, file or deferred state (their loops have no
// defer and start no goroutine), so unwinding leaves nothing behind; it
// spares each of the engines' loops (direct, histogram, vector, rounds,
// supermarket, deletions) a test of its own.
func RunTrialContext(ctx context.Context, s *core.Spec, trial uint64, progress func(balls uint64)) (res *result.Result, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done := ctx.Done()
	if done == nil { // a context that is never done (context.Background)
		return RunTrial(s, trial, progress), nil
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stopTrial); !ok {
				panic(r)
			}
			res, err = nil, ctx.Err()
		}
	}()
	return RunTrial(s, trial, func(balls uint64) {
		select {
		case <-done:
			panic(stopTrial{})
		default:
		}
		if progress != nil {
			progress(balls)
		}
	}), nil
}
