package compare

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// An emulated run set beside its rule's models: every comparison is made,
// the progress hears of every ball of them, the row's JSON keeps the keys
// files read before, and the table names the models.
func TestRunComparesEveryModel(t *testing.T) {
	com := core.Common{Bins: 100, Balls: 20000, Trials: 1, Seed: 1, Alpha: 1}
	spec, err := core.NewSpec("two-choice", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	res, err := concurrency.Run(concurrency.Config{Spec: spec, Workers: 4, Mode: concurrency.Racy, Layout: concurrency.Packed,
		MeasureEvery: 256, Emulate: true, RecordAges: true})
	if err != nil {
		t.Fatal(err)
	}
	models := spec.Proc.(process.Concurrent).Concurrent().Models
	var told, heard uint64
	done := 0
	progress := func(total uint64) (func(uint64), func()) {
		told = total
		return func(n uint64) { heard += n }, func() { done++ }
	}
	row, err := Run(res, spec, com, 0, models, progress)
	if err != nil {
		t.Fatal(err)
	}
	if row.ReplayGap == nil || row.IIDGap == nil || row.FreshGap == nil || row.DelayedGap == nil || row.BatchedGap == nil {
		t.Fatalf("a comparison is missing: %+v", row)
	}
	if told != 5*com.Balls || heard != told || done != 1 {
		t.Errorf("progress told %d balls, heard %d, done %d times; want 5·m = %d, all heard, once", told, heard, done, 5*com.Balls)
	}
	if row.Tau != row.AgeP99 || row.Regime == "" {
		t.Errorf("τ = %d, want the ages' p99 %d; regime %q", row.Tau, row.AgeP99, row.Regime)
	}
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"two_choice_gap":`, `"tau_p99":`, `"replay_gap":`, `"iid_ages_gap":`, `"shard_totals":{"0":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b[:min(len(b), 400)])
		}
	}
	var sb strings.Builder
	Print(&sb, []Row{row}, Setting{Spec: spec, Mode: concurrency.Racy, Layout: concurrency.Packed, Measure: 256, Emulated: true}, models)
	for _, want := range []string{"emulated workers", "replay of its ages", ModelText(models.Delayed) + " --delay replay", "means over trials"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
	// Without models the row is the run alone.
	row, err = Run(res, spec, com, 0, nil, nil)
	if err != nil || row.ReplayGap != nil || row.FreshGap != nil {
		t.Errorf("uncompared row has comparisons: %+v, %v", row, err)
	}
}

// The regimes' bounds: n/ln n and n ln n (Los and Sauerwald 2022, §1).
func TestRegimeBounds(t *testing.T) {
	n := uint64(1000) // n/ln n ≈ 144.8, n ln n ≈ 6907.8
	for _, c := range []struct {
		tau  uint64
		want string
	}{{0, "τ = 0"}, {144, "τ < n/ln n"}, {145, "τ around n"}, {6907, "τ around n"}, {6908, "τ ≥ n ln n"}} {
		if got := regime(c.tau, n); !strings.HasPrefix(got, c.want) {
			t.Errorf("regime(%d, %d) = %q, want %q…", c.tau, n, got, c.want)
		}
	}
}
