package balloc_test

import (
	"cmp"
	"context"
	"fmt"
	"log"

	"github.com/balloc/balloc"
)

// A study: the gap of d-choice over time for d = 1 … 4, at log-spaced
// checkpoints from n to m balls, averaged over trials run in parallel.
func Example() {
	ctx := context.Background()
	fmt.Println("balls     d=1    d=2    d=3    d=4")
	var curves [][]balloc.Checkpoint // per d: the mean gap at each checkpoint
	for d := 1; d <= 4; d++ {
		spec, err := balloc.NewSpec(balloc.Config{
			Process: "d-choice", Params: balloc.Params{"d": d},
			Bins: 1000, Balls: 1_000_000, Trials: 8, Seed: balloc.DefaultSeed,
			Checkpoints: 4, LogCheckpoints: true,
		})
		if err != nil {
			log.Fatal(err)
		}
		trials, err := spec.RunParallel(ctx, 0)
		if err != nil {
			log.Fatal(err)
		}
		mean := make([]balloc.Checkpoint, len(trials[0].Checkpoints))
		for _, r := range trials {
			for i, c := range r.Checkpoints {
				mean[i].Balls = c.Balls
				mean[i].Gap += c.Gap / float64(len(trials))
			}
		}
		curves = append(curves, mean)
	}
	for i, c := range curves[0] {
		fmt.Printf("%-8d", c.Balls)
		for _, curve := range curves {
			fmt.Printf(" %6.2f", curve[i].Gap)
		}
		fmt.Println()
	}
	// Output:
	// balls     d=1    d=2    d=3    d=4
	// 1000       4.12   2.00   1.38   1.00
	// 10000     11.38   2.00   1.25   1.00
	// 100000    38.12   2.00   1.88   1.00
	// 1000000  106.38   2.12   1.62   1.12
}

// Cancellation: a run stops within a chunk of balls once its context is
// done, here from the progress callback, and returns ctx.Err().
func ExampleSpec_Run_cancel() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen uint64
	spec, err := balloc.NewSpec(balloc.Config{
		Process: "two-choice", Bins: 10_000, Balls: 1_000_000_000_000, Seed: 1, Engine: balloc.EngineDirect,
		Progress: func(trial int, balls uint64) {
			seen = balls
			if balls >= 10_000_000 {
				cancel() // enough: a deadline, a signal or a user would do the same
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	results, err := spec.Run(ctx)
	fmt.Printf("%d results, %d of %d balls: %v\n", len(results), seen, spec.Balls(), err)
	// Output:
	// 0 results, 12582912 of 1000000000000 balls: context canceled
}

// memory is the memory process of Mitzenmacher, Prabhakar and Shah ("Load
// Balancing with Memory", FOCS 2002) with one sample and one remembered
// bin, as a Rule: the ball goes to the lighter of a uniform bin and the
// bin remembered from the last ball, which is then remembered. The
// remembered bin is per-trial state.
type memory struct{}

type memoryState struct{ last int }

func (memory) NewTrial(trial int) balloc.TrialRule { return &memoryState{last: -1} }

func (m *memoryState) Choose(ball uint64, loads []uint32, r *balloc.Rand) int {
	i := r.Intn(len(loads))
	if m.last >= 0 && loads[m.last] < loads[i] {
		i = m.last
	}
	m.last = i
	return i
}

// A rule of one's own with per-trial state runs like a built-in process,
// here beside one-choice and two-choice on the same seed.
func ExampleRule() {
	ctx := context.Background()
	for _, c := range []balloc.Config{
		{Process: "one-choice", Engine: balloc.EngineDirect},
		{Rule: memory{}},
		{Process: "two-choice"},
	} {
		c.Bins, c.Balls, c.Trials, c.Seed = 1000, 100_000, 4, 1
		spec, err := balloc.NewSpec(c)
		if err != nil {
			log.Fatal(err)
		}
		results, err := spec.RunParallel(ctx, 0)
		if err != nil {
			log.Fatal(err)
		}
		name := c.Process
		if c.Rule != nil {
			name = "memory (a Rule)"
		}
		fmt.Printf("%-16s gaps", name)
		for _, r := range results {
			fmt.Printf(" %g", r.Gap)
		}
		fmt.Println()
	}
	// Output:
	// one-choice       gaps 36 32 30 41
	// memory (a Rule)  gaps 3 3 3 3
	// two-choice       gaps 2 2 2 2
}

// A stateless rule is a function; it gets the trial and ball numbers too.
// Written as two-choice's definition, it gives two-choice's trials.
func ExampleRuleFunc() {
	lighterOfTwo := balloc.RuleFunc(func(trial int, ball uint64, loads []uint32, r *balloc.Rand) int {
		i, j := r.Intn(len(loads)), r.Intn(len(loads))
		if loads[j] < loads[i] {
			return j
		}
		return i
	})
	ctx := context.Background()
	for _, c := range []balloc.Config{{Rule: lighterOfTwo}, {Process: "two-choice", Engine: balloc.EngineDirect}} {
		name := cmp.Or(c.Process, "rule")
		c.Bins, c.Balls, c.Seed = 1000, 100_000, 7
		spec, err := balloc.NewSpec(c)
		if err != nil {
			log.Fatal(err)
		}
		r, err := spec.Trial(ctx, 0)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-10s gap %g, histogram %v\n", name, r.Gap, r.Histogram)
	}
	// Output:
	// rule       gap 2, histogram [{96 3} {97 12} {98 51} {99 194} {100 417} {101 302} {102 21}]
	// two-choice gap 2, histogram [{96 3} {97 12} {98 51} {99 194} {100 417} {101 302} {102 21}]
}

// The fluid limit beside a trial: the fraction of bins with load ≥ i,
// simulated and predicted.
func ExampleConfig_theory() {
	spec, err := balloc.NewSpec(balloc.Config{Process: "two-choice", Bins: 100_000, Balls: 1_000_000, Seed: 1, Theory: true})
	if err != nil {
		log.Fatal(err)
	}
	r, err := spec.Trial(context.Background(), 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Theory.Model)
	for _, l := range r.Theory.Levels {
		fmt.Printf("load ≥ %2g: simulated %.5f, fluid %.5f\n", l.Load, l.Simulated, l.Fluid)
	}
	// Output:
	// fluid limit (mean-field ODE)
	// load ≥  3: simulated 0.99999, fluid 1.00000
	// load ≥  4: simulated 0.99999, fluid 0.99999
	// load ≥  5: simulated 0.99993, fluid 0.99992
	// load ≥  6: simulated 0.99957, fluid 0.99955
	// load ≥  7: simulated 0.99767, fluid 0.99753
	// load ≥  8: simulated 0.98733, fluid 0.98737
	// load ≥  9: simulated 0.93878, fluid 0.93905
	// load ≥ 10: simulated 0.74522, fluid 0.74529
	// load ≥ 11: simulated 0.30653, fluid 0.30672
	// load ≥ 12: simulated 0.02493, fluid 0.02451
	// load ≥ 13: simulated 0.00006, fluid 0.00007
}

// Balls that leave: the supermarket model with two choices at λ = 0.9,
// its time-averaged queue lengths beside the mean field's fixed point
// λ^(2^i − 1).
func ExampleSupermarket() {
	spec, err := balloc.NewSpec(balloc.Config{
		Process: "two-choice", Bins: 10_000, Seed: 1, Theory: true,
		Supermarket: &balloc.Supermarket{ArrivalRate: 0.9, Time: 200, Warmup: 50},
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := spec.Trial(context.Background(), 0)
	if err != nil {
		log.Fatal(err)
	}
	d := r.Dynamic
	for i, s := range d.AtLeast[:5] {
		fmt.Printf("load ≥ %d: %.4f ± %.4f, fixed point %.4f\n", i+1, s, d.AtLeastSE[i], d.FixedPoint[i])
	}
	fmt.Printf("mean time in the system %.3f ± %.3f\n", d.Sojourn, d.SojournSE)
	// Output:
	// load ≥ 1: 0.9000 ± 0.0006, fixed point 0.9000
	// load ≥ 2: 0.7296 ± 0.0013, fixed point 0.7290
	// load ≥ 3: 0.4789 ± 0.0020, fixed point 0.4783
	// load ≥ 4: 0.2063 ± 0.0018, fixed point 0.2059
	// load ≥ 5: 0.0382 ± 0.0007, fixed point 0.0382
	// mean time in the system 2.616 ± 0.007
}

// A refusal names the parameter at fault and what it accepts.
func ExampleNewSpec_error() {
	_, err := balloc.NewSpec(balloc.Config{Process: "d-choice", Params: balloc.Params{"d": 0}, Bins: 10, Balls: 10})
	fmt.Println(err)
	// Output:
	// balloc: parameter d = 0: want an integer in [1, min(bins, 1048576)]
}
