package core

import "testing"

// A grid point's hash changes with every setting that decides its trials'
// results, and not with the number of trials (a sweep can grow). Catches a
// setting left out of the hash, so that a sweep resumes another's results
// as its own: --checkpoints log:K against K (the same count, other balls
// snapshotted), seed, n, m, α, engine.
func TestHashSeesEverySettingThatDecidesResults(t *testing.T) {
	base := Common{Bins: 100, Balls: 10000, Trials: 3, Seed: 1, Alpha: 1, Engine: EngineDirect, Checkpoints: 10}
	hash := func(c Common) string {
		s, err := NewSpec("two-choice", nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return s.Hash()
	}
	h0 := hash(base)
	for _, c := range []struct {
		what string
		set  func(*Common)
	}{
		{"--checkpoints log:10 against 10", func(c *Common) { c.CheckpointsLog = true }},
		{"--checkpoints 11", func(c *Common) { c.Checkpoints = 11 }},
		{"--seed", func(c *Common) { c.Seed = 2 }},
		{"--bins", func(c *Common) { c.Bins = 101 }},
		{"--balls", func(c *Common) { c.Balls = 10001 }},
		{"--alpha", func(c *Common) { c.Alpha = 0.5 }},
		{"--engine", func(c *Common) { c.Engine = EngineHistogram }},
	} {
		c2 := base
		c.set(&c2)
		if hash(c2) == h0 {
			t.Errorf("%s: the spec hash is unchanged, so a sweep would resume the other's results", c.what)
		}
	}
	more := base
	more.Trials = 30
	if hash(more) != h0 {
		t.Errorf("--trials changes the hash: a sweep could not grow")
	}
}
