package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
)

// Setting is how the runs of a table were made, as its header says.
type Setting struct {
	Spec     *core.Spec
	Mode     concurrency.Mode
	Layout   concurrency.Layout
	Measure  uint64 // staleness measured every Measure-th ball of each worker
	Emulated bool   // virtual workers in one goroutine (concurrency.Config.Emulate)
	Traced   bool   // every ball stamped (concurrency.Config.TraceAges)
}

// Progress, when not nil, is told before a trial's sequential runs the
// balls they will place, and returns the callback the engine reports its
// balls to and the function called when they are done.
type Progress func(total uint64) (report func(uint64), done func())

// z975 turns a standard error of batch means (many, close to normal) into
// the half-width of a 95% interval: every ± in balloc's tables is one.
const z975 = 1.959963984540054

// g formats a figure for a table (result.Figure).
func g(x float64) string { return result.Figure(x) }

// Row is one concurrent run and the sequential runs set beside it:
// one JSON object per run, its headline figures at the top level.
type Row struct {
	Workers   int     `json:"workers"`
	Trial     uint64  `json:"trial"`
	Gap       float64 `json:"gap"`
	BallsPerS float64 `json:"balls_per_s"`
	// Ages: of every ball (emulated runs) or of every measure-every-th
	// ball of each worker (goroutines), in balls.
	AgesOf  string  `json:"ages_of"`
	AgeMean float64 `json:"age_mean"`
	AgeP50  uint64  `json:"age_p50"`
	AgeP90  uint64  `json:"age_p90"`
	AgeP99  uint64  `json:"age_p99"`
	AgeP999 uint64  `json:"age_p999"`
	AgeMax  uint64  `json:"age_max"`
	// Descheduled: measured balls of a goroutine run (racy, cas) whose
	// read-to-add took over 20 µs, and their largest age.
	Descheduled       uint64 `json:"descheduled"`
	DescheduledAgeMax uint64 `json:"descheduled_age_max"`
	// ReplayGap: the delayed model with --delay replay on the run's own age
	// sequence (emulated and --trace-ages runs only); IIDGap: with --delay
	// empirical, ages drawn independently from the run's law of ages.
	ReplayGap *float64 `json:"replay_gap"`
	IIDGap    *float64 `json:"iid_ages_gap"`
	// FreshGap: the rule on fresh loads (process.Models.Fresh). The JSON
	// keys of the three models' runs and gaps are those of the first rule
	// compared, the least of two samples (two-choice, tau-delay, b-batch):
	// kept, so that files read before read the same.
	FreshGap *float64 `json:"two_choice_gap"`
	// With --trace-ages: the balls whose traced age exceeds 1000·W (their
	// worker was descheduled), and the same trial's untraced run just
	// before, for what tracing costs.
	TracedPreempted   *uint64  `json:"traced_preempted,omitempty"`
	UntracedBallsPerS *float64 `json:"untraced_balls_per_s,omitempty"`
	UntracedGap       *float64 `json:"untraced_gap,omitempty"`
	// Tau is the age quantile the theory rows use (p99), Regime what the
	// paper's text says for it; DelayedGap and BatchedGap the sequential
	// delayed model's --delay fixed --tau τ and batched model's --batch
	// max(τ, 1) runs.
	// Sharded mode: the bound backpressure keeps every ball's age below
	// (concurrency.ShardedAgeBound) and the times a worker waited for it.
	AgeBound          uint64  `json:"age_bound,omitempty"`
	BackpressureWaits *uint64 `json:"backpressure_waits,omitempty"`

	Tau        uint64   `json:"tau_p99"`
	Regime     string   `json:"regime,omitempty"`
	DelayedGap *float64 `json:"tau_delay_gap"`
	BatchedGap *float64 `json:"b_batch_gap"`

	// With balls that leave (Departures), its figures at the
	// top level; nil otherwise, and then none of its fields appear.
	*DeparturesRow

	Concurrent Result         `json:"concurrent"`
	Replay     *result.Result `json:"replay,omitempty"`
	Model      *result.Result `json:"delay_model,omitempty"`
	Fresh      *result.Result `json:"two_choice,omitempty"`
	Delayed    *result.Result `json:"tau_delay,omitempty"`
	Batched    *result.Result `json:"b_batch,omitempty"`
}

// Result is a concurrent run's result as the JSON gives it: its
// shard totals (64 ranges of bins, most of them empty when n is small) as
// {"shard": balls} of the shards that got balls.
type Result struct {
	*concurrency.Result
	ShardTotals shardTotals `json:"shard_totals"`
}

// shardTotals are the balls in each shard, written as a JSON object of the
// non-zero ones, keyed by shard index in ascending order ({"0": 1601, ...}).
type shardTotals []uint64

func (st shardTotals) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range st {
		if x == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%q:%d", strconv.Itoa(i), x)
	}
	return append(b, '}'), nil
}

// NewRow is a run's row without comparisons: its gap, speed and
// law of ages (exact where every ball's age was kept, else the measured
// balls').
func NewRow(res *concurrency.Result, tr uint64) (Row, concurrency.Dist) {
	law, of := res.GlobalStaleness, fmt.Sprintf("every %d-th ball of each worker", res.MeasureEvery)
	if res.AgeLaw != nil {
		law, of = *res.AgeLaw, "every ball"
		if res.Traced {
			of = "every ball, from its TSC stamps"
		}
	}
	row := Row{Workers: res.Workers, Trial: tr, Gap: res.Gap, BallsPerS: res.BallsPerS, AgesOf: of,
		AgeMean: law.Mean, AgeP50: law.P50, AgeP90: law.P90, AgeP99: law.P99, AgeP999: law.P999, AgeMax: law.Max,
		Tau: law.P99, Descheduled: res.Descheduled.Count, DescheduledAgeMax: res.Descheduled.Max,
		Concurrent: Result{res, shardTotals(res.ShardTotals)}}
	if res.Mode == concurrency.Sharded.String() {
		row.AgeBound, row.BackpressureWaits = res.AgeBound, &res.BackpressureWaits
	}
	return row, law
}

// Run sets the rule's sequential models beside a concurrent run
// (models nil: none): the delayed model replaying its ages and with i.i.d.
// ages of their law, the rule on fresh loads, and the delayed and batched
// models at the ages' p99. The sequential runs use trial numbers 2^20 and
// up, so their choices are independent of the run's.
func Run(res *concurrency.Result, spec *core.Spec, com core.Common, tr uint64, models *process.Models, progress Progress) (Row, error) {
	row, law := NewRow(res, tr)
	if models == nil || law.Count == 0 {
		return row, nil
	}
	seq := tr + 1<<20
	runs := uint64(4) // i.i.d. ages, fresh, delayed, batched
	if res.Ages != nil {
		runs++ // the replay
	}
	var report func(uint64)
	if progress != nil {
		var done func()
		report, done = progress(runs * spec.Balls)
		defer done()
	}
	run := func(m process.Model, set map[string]string, opts ...core.SpecOption) (*result.Result, *float64, error) {
		s, err := core.NewSpec(m.Process, m.With(set), com, opts...)
		if err != nil {
			return nil, nil, err
		}
		r := engine.RunTrial(s, seq, report)
		return r, &r.Gap, nil
	}
	var err error
	if res.Ages != nil {
		source := "emulated"
		if res.Traced {
			source = "traced"
		}
		if row.Replay, row.ReplayGap, err = run(models.Delayed, map[string]string{"delay": "replay"},
			core.WithReplay(res.Ages, fmt.Sprintf("%s run (%d workers, trial %d)", source, res.Workers, tr))); err != nil {
			return row, err
		}
	}
	if row.Model, row.IIDGap, err = run(models.Delayed, map[string]string{"delay": "empirical"},
		core.WithAges(law.Weights(), fmt.Sprintf("measured (%d workers)", res.Workers))); err != nil {
		return row, err
	}
	if row.Fresh, row.FreshGap, err = run(models.Fresh, nil); err != nil {
		return row, err
	}
	row.Regime = regime(row.Tau, spec.Bins)
	if row.Delayed, row.DelayedGap, err = run(models.Delayed, map[string]string{"delay": "fixed", "tau": fmt.Sprint(row.Tau)}); err != nil {
		return row, err
	}
	if row.Batched, row.BatchedGap, err = run(models.Batched, map[string]string{"batch": fmt.Sprint(max(row.Tau, 1))}); err != nil {
		return row, err
	}
	return row, nil
}

// ModelText is a model as the tables name it: the process and the values
// that make it the rule ("one-plus-beta beta=0.5").
func ModelText(m process.Model) string {
	parts := []string{m.Process}
	keys := make([]string, 0, len(m.Set))
	for k := range m.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+m.Set[k])
	}
	return strings.Join(parts, " ")
}

// regime says which of the bounds of Los and Sauerwald, "Balanced
// Allocations with the Choice of Noise" (PODC 2022), §1, covers delay τ or
// batch b = τ on n bins: for b ≥ n log n the b-Batch gap is Θ(b/n) (§1,
// related work, from the authors' batching results); for τ and b "around
// n" the τ-Delay and b-Batch bounds are tight (§1, our results; proved in
// §10–11), Θ(log n / log log n) for b = n. The paper gives "around n" no
// range; it is taken here as n/ln n ≤ τ < n ln n.
func regime(tau, n uint64) string {
	ln := math.Log(float64(max(n, 2)))
	t := float64(tau)
	switch {
	case tau == 0:
		return "τ = 0: no delay, Two-Choice"
	case t >= float64(n)*ln:
		return "τ ≥ n ln n: b-Batch gap Θ(b/n) (§1, related work); no τ-Delay bound quoted"
	case t >= float64(n)/ln:
		return "τ around n: tight τ-Delay and b-Batch bounds (§1, our results; §10–11); b = n: Θ(log n / log log n)"
	}
	return "τ < n/ln n: no bound quoted"
}

// ModelsText says which processes, at their defaults, have sequential
// models and which, for the command's help: "d-choice (two-choice,
// tau-delay, b-batch); ...".
func ModelsText() string {
	var parts []string
	for _, e := range process.ConcurrentProcesses() {
		p := e.New()
		var w process.Weights
		if process.Apply(p, nil, &w) != nil {
			continue // a required parameter: no defaults to read
		}
		if m := p.(process.Concurrent).Concurrent().Models; m != nil {
			parts = append(parts, fmt.Sprintf("%s (%s, %s, %s)", e.Name, m.Fresh.Process, m.Delayed.Process, m.Batched.Process))
		}
	}
	return strings.Join(parts, "; ")
}
