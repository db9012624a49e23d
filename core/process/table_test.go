package process_test

import (
	"testing"

	"github.com/balloc/balloc/internal/proctable"
)

// table is the per-process test table: each process's *_table_test.go
// adds its rows (its literal slow loop, and its exact law for tiny n where
// one is declared), and TestProcessTable runs them all through every
// engine their process claims (internal/proctable).
var table []proctable.Row

// pending are the processes that have no row yet, each with why (redundancy,
// whose unit is a job of d copies in the supermarket model, not a ball,
// checked by its own literal loop; leaky's rounds have rows, as rbb's, in
// leaky_table_test.go). A new
// process is not among them, so it fails TestProcessTable until it
// declares its row.
var pending = map[string]string{}

func init() {
	pending["redundancy"] = "the supermarket model only, by its own event loop (a job is d copies, not one ball): kernels/redundancy_test.go checks it against a literal loop event for event, core/engine/redundancy_test.go d = 1 against one-choice's run and d = 2 against the paper's response time"
}

func TestProcessTable(t *testing.T) {
	o := proctable.Options{SlowBins: 12, SlowBalls: 3000, Checks: []uint64{1, 2, 3, 17, 64, 65, 200}, LawTrials: 40000, Pending: pending}
	if testing.Short() {
		o.SlowBalls, o.LawTrials = 1000, 10000
	}
	proctable.Run(t, table, o)
}
