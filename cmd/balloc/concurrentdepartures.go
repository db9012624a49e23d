package main

import "github.com/spf13/pflag"

// balloc concurrent with departures: the supermarket model on the shared
// loads (concurrency/departures.go has the semantics), with balloc run's
// flag names and meanings for its length (core/dynamic.go), set beside the
// sequential supermarket run at the same λ and the mean field's fixed
// point.

// addConcurrentDynamicFlags adds --arrival-rate, --time, --events and
// --warmup, as balloc run has them (parseDynamic reads them).
func addConcurrentDynamicFlags(fl *pflag.FlagSet, f *dynamicFlags) {
	fl.StringVar(&f.arrivalRate, "arrival-rate", "", "the supermarket model: arrivals at rate λ·n (0 < λ < 1), each non-empty bin serving one at rate 1; each worker draws its own uniformized events (an arrival with probability λ/(1+λ), else a departure from a uniform bin if non-empty, by compare-and-swap); replaces --balls by --time or --events; racy and cas modes")
	fl.StringVar(&f.time, "time", "", "with --arrival-rate: run time T, as round(n(1+λ)·T) events split over the workers")
	fl.StringVar(&f.events, "events", "", "with --arrival-rate: run E events (arrivals and potential departures) in all, split over the workers, instead of --time")
	fl.StringVar(&f.warmup, "warmup", "", "with --arrival-rate: time left out of the time averages (default 0), each worker's share of its events")
}
