package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"

	api "github.com/balloc/balloc"
)

// commandResult is what this test reads of `balloc run --format json`: the
// fields the Go API returns, by their JSON names (README, Output).
type commandResult struct {
	Trial       int          `json:"trial"`
	Engine      string       `json:"engine"`
	Balls       uint64       `json:"balls"`
	Gap         float64      `json:"gap"`
	MaxLoad     float64      `json:"max_load"`
	MinLoad     float64      `json:"min_load"`
	Average     float64      `json:"average"`
	Underload   float64      `json:"underload"`
	MaxGap      float64      `json:"max_gap"`
	Quadratic   *float64     `json:"quadratic_potential"`
	LogExpPot   float64      `json:"log_exp_potential"`
	Histogram   [][2]float64 `json:"histogram"`
	Loads       []float64    `json:"loads"`
	Checkpoints []struct {
		Balls     uint64   `json:"balls"`
		Gap       float64  `json:"gap"`
		MaxLoad   float64  `json:"max_load"`
		MinLoad   float64  `json:"min_load"`
		Underload float64  `json:"underload"`
		Quadratic *float64 `json:"quadratic_potential"`
		LogExpPot float64  `json:"log_exp_potential"`
		Round     uint64   `json:"round"`
	} `json:"checkpoints"`
	Theory *struct {
		Model  string `json:"model"`
		Levels []struct {
			Load      float64 `json:"load"`
			Simulated float64 `json:"simulated"`
			Fluid     float64 `json:"fluid"`
		} `json:"levels"`
		FirstMomentMax int `json:"first_moment_max_load"`
	} `json:"theory"`
	Dynamic *struct {
		Model        string    `json:"model"`
		Events       uint64    `json:"events"`
		Arrivals     uint64    `json:"arrivals"`
		Departures   uint64    `json:"departures"`
		AtLeast      []float64 `json:"at_least"`
		AtLeastSE    []float64 `json:"at_least_se"`
		FinalAtLeast []float64 `json:"final_at_least"`
		Batches      int       `json:"batches"`
		BatchLag1    float64   `json:"batch_lag1"`
		MeanQueue    float64   `json:"mean_queue"`
		MeanQueueSE  float64   `json:"mean_queue_se"`
		Sojourn      float64   `json:"sojourn"`
		SojournSE    float64   `json:"sojourn_se"`
		MaxEver      float64   `json:"max_ever"`
		FixedPoint   []float64 `json:"fixed_point"`
	} `json:"dynamic"`
}

// potential reads a potential as the JSON writes it: null for +Inf.
func potential(p *float64) float64 {
	if p == nil {
		return math.Inf(1)
	}
	return *p
}

// asAPI writes the command's trial as the Go API's Result.
func (c commandResult) asAPI() api.Result {
	r := api.Result{
		Trial: c.Trial, Engine: api.Engine(c.Engine), Balls: c.Balls,
		Gap: c.Gap, MaxLoad: c.MaxLoad, MinLoad: c.MinLoad, Average: c.Average, Underload: c.Underload,
		MaxGap: c.MaxGap, Quadratic: potential(c.Quadratic), LogExpPotential: c.LogExpPot, Loads: c.Loads,
	}
	for _, l := range c.Histogram {
		r.Histogram = append(r.Histogram, api.Level{Load: l[0], Count: uint64(l[1])})
	}
	for _, k := range c.Checkpoints {
		r.Checkpoints = append(r.Checkpoints, api.Checkpoint{Balls: k.Balls, Gap: k.Gap, MaxLoad: k.MaxLoad, MinLoad: k.MinLoad,
			Underload: k.Underload, Quadratic: potential(k.Quadratic), LogExpPotential: k.LogExpPot, Round: k.Round})
	}
	if t := c.Theory; t != nil {
		r.Theory = &api.Theory{Model: t.Model, FirstMomentMax: t.FirstMomentMax}
		for _, l := range t.Levels {
			r.Theory.Levels = append(r.Theory.Levels, api.TheoryLevel(l))
		}
	}
	if d := c.Dynamic; d != nil {
		r.Dynamic = &api.Dynamic{Model: d.Model, Events: d.Events, Arrivals: d.Arrivals, Departures: d.Departures,
			AtLeast: d.AtLeast, AtLeastSE: d.AtLeastSE, FinalAtLeast: d.FinalAtLeast, Batches: d.Batches, BatchLag1: d.BatchLag1,
			MeanQueue: d.MeanQueue, MeanQueueSE: d.MeanQueueSE, Sojourn: d.Sojourn, SojournSE: d.SojournSE, MaxEver: d.MaxEver,
			FixedPoint: d.FixedPoint}
	}
	return r
}

// The Go API runs what `balloc run` runs: for each spec, the API's trials
// under a Config and the command's JSON under the same flags are equal
// field for field (the histogram, the checkpoints, max_gap, the theory
// beside each trial, the departures' statistics), on each engine, with
// balls that leave, from an initial start, and at the command's default
// seed.
func TestAPIIsTheCommand(t *testing.T) {
	cases := []struct {
		args []string
		cfg  api.Config
	}{
		{[]string{"--process", "d-choice", "--d", "3", "--bins", "1000", "--balls", "1e5", "--trials", "3", "--seed", "5",
			"--checkpoints", "log:6", "--theory", "--alpha", "0.5", "--loads"},
			api.Config{Process: "d-choice", Params: api.Params{"d": 3}, Bins: 1000, Balls: 1e5, Trials: 3, Seed: 5,
				Checkpoints: 6, LogCheckpoints: true, Theory: true, Alpha: 0.5, KeepLoads: true}},
		{[]string{"--process", "one-plus-beta", "--beta", "0.5", "--bins", "1e5", "--balls", "1e7", "--trials", "2", "--seed", "9",
			"--engine", "histogram", "--checkpoints", "4", "--theory"},
			api.Config{Process: "one-plus-beta", Params: api.Params{"beta": 0.5}, Bins: 1e5, Balls: 1e7, Trials: 2, Seed: 9,
				Engine: api.EngineHistogram, Checkpoints: 4, Theory: true}},
		{[]string{"--process", "two-choice", "--bins", "1000", "--balls", "2e4", "--trials", "2"}, // no --seed: the default
			api.Config{Process: "two-choice", Bins: 1000, Balls: 2e4, Trials: 2, Seed: api.DefaultSeed}},
		{[]string{"--process", "b-batch", "--batch", "500", "--bins", "1000", "--balls", "2e4", "--checkpoints", "7", "--seed", "0"},
			api.Config{Process: "b-batch", Params: api.Params{"batch": 500}, Bins: 1000, Balls: 2e4, Checkpoints: 7}},
		{[]string{"--process", "two-choice", "--weights", "exp:1", "--bins", "500", "--balls", "5000", "--seed", "3"},
			api.Config{Process: "two-choice", Params: api.Params{"weights": "exp:1"}, Bins: 500, Balls: 5000, Seed: 3}},
		{[]string{"--process", "two-choice", "--initial", "spike:40", "--bins", "500", "--balls", "5000", "--seed", "3", "--checkpoints", "2"},
			api.Config{Process: "two-choice", Initial: "spike:40", Bins: 500, Balls: 5000, Seed: 3, Checkpoints: 2}},
		{[]string{"--process", "two-choice", "--arrival-rate", "0.9", "--time", "20", "--bins", "1000", "--trials", "2", "--seed", "4", "--theory"},
			api.Config{Process: "two-choice", Supermarket: &api.Supermarket{ArrivalRate: 0.9, Time: 20}, Bins: 1000, Trials: 2, Seed: 4, Theory: true}},
		{[]string{"--process", "one-plus-beta", "--beta", "0.7", "--delete-prob", "0.3", "--delete", "bin", "--bins", "1000", "--balls", "1e5",
			"--checkpoints", "3", "--seed", "6"},
			api.Config{Process: "one-plus-beta", Params: api.Params{"beta": 0.7}, Deletions: &api.Deletions{Prob: 0.3, Mode: "bin"},
				Bins: 1000, Balls: 1e5, Checkpoints: 3, Seed: 6}},
		{[]string{"--process", "two-choice", "--phases", "+20000,-15000,+5000", "--bins", "1000", "--seed", "2", "--engine", "direct"},
			api.Config{Process: "two-choice", Deletions: &api.Deletions{Phases: []int64{20000, -15000, 5000}}, Bins: 1000, Seed: 2,
				Engine: api.EngineDirect}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.cfg.Process), func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := Main(append([]string{"run", "--format", "json"}, c.args...), &out, &errs); code != 0 {
				t.Fatalf("balloc run %v: exit %d: %s", c.args, code, errs.String())
			}
			var cmd []commandResult
			if err := json.Unmarshal(out.Bytes(), &cmd); err != nil {
				t.Fatalf("balloc run %v: %v", c.args, err)
			}
			spec, err := api.NewSpec(c.cfg)
			if err != nil {
				t.Fatalf("NewSpec: %v", err)
			}
			api, err := spec.RunParallel(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(api) != len(cmd) {
				t.Fatalf("%d trials from the API, %d from balloc run %v", len(api), len(cmd), c.args)
			}
			for k := range api {
				if want := cmd[k].asAPI(); !reflect.DeepEqual(api[k], want) {
					t.Errorf("trial %d of balloc run %v:\nAPI     %s\ncommand %s", k, c.args, show(api[k]), show(want))
				}
			}
		})
	}
}

// show writes a Result with its pointers followed.
func show(r api.Result) string {
	s := fmt.Sprintf("%+v", r)
	if r.Theory != nil {
		s += fmt.Sprintf(" theory %+v", *r.Theory)
	}
	if r.Dynamic != nil {
		s += fmt.Sprintf(" dynamic %+v", *r.Dynamic)
	}
	return s
}
