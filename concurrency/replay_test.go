package concurrency

import (
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// gapsOf runs trials emulated racy two-choice runs with W virtual workers
// and returns, per trial, the emulated gap, the gap of tau-delay replaying
// the run's own age sequence, and that of tau-delay with ages drawn i.i.d.
// from the same run's law of ages.
func gapsOf(t *testing.T, n, m uint64, W int, mode Mode, trials int, seed uint64) (emu, rep, iid []float64) {
	t.Helper()
	c := core.Common{Bins: n, Balls: m, Trials: 1, Seed: seed, Alpha: 1, Engine: core.EngineDirect}
	for tr := range uint64(trials) {
		res, err := Run(Config{Spec: spec(t, "two-choice", nil, n, m, seed), Trial: tr, Workers: W, Mode: mode, Emulate: true, RecordAges: true})
		if err != nil {
			t.Fatal(err)
		}
		if uint64(len(res.Ages)) != m {
			t.Fatalf("%d ages recorded for %d balls", len(res.Ages), m)
		}
		rs, err := core.NewSpec("tau-delay", map[string]string{"delay": "replay"}, c, core.WithReplay(res.Ages, "emulated"))
		if err != nil {
			t.Fatal(err)
		}
		is, err := core.NewSpec("tau-delay", map[string]string{"delay": "empirical"}, c, core.WithAges(res.AgeLaw.Weights(), "emulated"))
		if err != nil {
			t.Fatal(err)
		}
		emu = append(emu, res.Gap)
		rep = append(rep, engine.RunTrial(rs, tr+1<<20, nil).Gap)
		iid = append(iid, engine.RunTrial(is, tr+1<<20, nil).Gap)
	}
	return emu, rep, iid
}

// An emulated run is τ-Delay driven by its own age sequence, so the replay
// has the emulated gap's law: the means agree within 4 standard errors of
// the difference (independent samples: the replay draws its own bins).
// Ages drawn i.i.d. from the same marginal lose the joint law of the
// schedule, and with many workers on few bins their gap is measurably off
// (larger, as measured: 9.1 against 3.1 at n = 16, W = 2048; 3.8 against
// 2.5 at n = 1000, W = 1024): more than 6 standard errors, the bias of the
// i.i.d. model. With one worker every age is 0 and all three are
// two-choice.
func TestReplayOfEmulationMatchesIt(t *testing.T) {
	cases := []struct {
		n, m   uint64
		W      int
		trials int
		differ bool // the i.i.d. model must differ
	}{
		{100, 20000, 1, 40, false},
		{16, 16000, 2048, 40, true},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			n, m   uint64
			W      int
			trials int
			differ bool
		}{1000, 200000, 1024, 40, true})
	}
	for _, c := range cases {
		emu, rep, iid := gapsOf(t, c.n, c.m, c.W, Racy, c.trials, 21)
		em, ese := meanSE(emu)
		rm, rse := meanSE(rep)
		im, ise := meanSE(iid)
		t.Logf("n = %d, W = %d: emulated %.3f ± %.3f, replay %.3f ± %.3f, i.i.d. ages %.3f ± %.3f", c.n, c.W, em, ese, rm, rse, im, ise)
		if se := math.Hypot(ese, rse); math.Abs(em-rm) > 4*se+1e-9 {
			t.Errorf("n = %d, W = %d: the replay's gap %.3f is not the emulated %.3f (SE %.3f)", c.n, c.W, rm, em, se)
		}
		if se := math.Hypot(ese, ise); c.differ && math.Abs(em-im) < 6*se {
			t.Errorf("n = %d, W = %d: the i.i.d.-ages model's gap %.3f is within 6 SE (%.3f) of the emulated %.3f", c.n, c.W, im, se, em)
		}
	}
}

// Sharded mode's commit delays, emulated: a foreign ball waits in a batch
// for its owner. Which batch fills first depends on the bins chosen, so the
// schedule is not quite independent of the choices and the replay is a
// model here, not the process; it is checked to agree within 4 standard
// errors at a size where the batches' delay dominates (n = 64, W = 8: ages
// of hundreds of balls, against a gap of a few).
func TestReplayOfShardedEmulation(t *testing.T) {
	emu, rep, _ := gapsOf(t, 64, 20000, 8, Sharded, 40, 22)
	em, ese := meanSE(emu)
	rm, rse := meanSE(rep)
	t.Logf("sharded, n = 64, W = 8: emulated %.3f ± %.3f, replay %.3f ± %.3f", em, ese, rm, rse)
	if se := math.Hypot(ese, rse); math.Abs(em-rm) > 4*se+1e-9 {
		t.Errorf("the replay's gap %.3f is not the emulated %.3f (SE %.3f)", rm, em, se)
	}
}
