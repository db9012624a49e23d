package balloc_test

import (
	"fmt"
	"slices"

	"github.com/balloc/balloc/balloc"
)

// Build a spec, run its trials, read each trial's gap and maximum load.
func ExampleNewSpec() {
	spec, err := balloc.NewSpec(balloc.Config{
		Process: "d-choice", Params: map[string]string{"d": "3"},
		Bins: 1000, Balls: 100000, Trials: 3, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range spec.Run() {
		fmt.Printf("trial %d: gap %g, max load %g\n", r.Trial, r.Gap, r.MaxLoad)
	}
	// Output:
	// trial 0: gap 2, max load 102
	// trial 1: gap 1, max load 101
	// trial 2: gap 2, max load 102
}

// A bad parameter is refused with the flag's name, as on the command line.
func ExampleNewSpec_badParameter() {
	_, err := balloc.NewSpec(balloc.Config{Process: "d-choice", Params: map[string]string{"d": "0"}, Bins: 10, Balls: 10})
	fmt.Println(err)
	// Output:
	// --d "0": want an integer in [1, min(bins, 1048576)]
}

// Parallel trials are the sequential ones: a trial depends only on the
// seed and its number.
func ExampleSpec_RunParallel() {
	spec, _ := balloc.NewSpec(balloc.Config{Process: "two-choice", Bins: 10000, Balls: 100000, Trials: 8, Seed: 7})
	par, seq := spec.RunParallel(4), spec.Run()
	fmt.Println("same as sequential:", slices.EqualFunc(par, seq, func(a, b balloc.Result) bool {
		return a.Gap == b.Gap && slices.Equal(a.Histogram, b.Histogram)
	}))
	fmt.Printf("trial 5: gap %g\n", par[5].Gap)
	// Output:
	// same as sequential: true
	// trial 5: gap 2
}

// The load histogram of one trial: how many bins hold each load.
func ExampleResult_histogram() {
	spec, _ := balloc.NewSpec(balloc.Config{Process: "g-myopic-comp", Params: map[string]string{"g": "2"}, Bins: 1000, Balls: 5000, Seed: 3})
	for _, l := range spec.Trial(0).Histogram {
		fmt.Printf("%g: %d bins\n", l.Load, l.Count)
	}
	// Output:
	// 0: 1 bins
	// 1: 6 bins
	// 2: 37 bins
	// 3: 129 bins
	// 4: 214 bins
	// 5: 229 bins
	// 6: 223 bins
	// 7: 101 bins
	// 8: 54 bins
	// 9: 5 bins
	// 10: 1 bins
}

// lighterOfTwo is a rule of one's own: two uniform bins, the ball to the
// lighter, ties to the first (two-choice, but written by a user).
type lighterOfTwo struct{}

func (lighterOfTwo) Choose(loads []uint32, r *balloc.Rand) int {
	i, j := r.Intn(len(loads)), r.Intn(len(loads))
	if loads[j] < loads[i] {
		return j
	}
	return i
}

// A user-defined allocation rule runs like a built-in process.
func ExampleRule() {
	spec, err := balloc.NewSpec(balloc.Config{Rule: lighterOfTwo{}, Bins: 1000, Balls: 100000, Trials: 4, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range spec.RunParallel(0) {
		fmt.Printf("trial %d: gap %g\n", r.Trial, r.Gap)
	}
	// Output:
	// trial 0: gap 2
	// trial 1: gap 2
	// trial 2: gap 2
	// trial 3: gap 2
}
