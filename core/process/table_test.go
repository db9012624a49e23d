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

// pending are the processes that have no row yet, each with why: none
// today (the round processes, rbb and leaky, declare whole trials and the
// law over their whole state; redundancy, whose jobs are d copies, runs its
// rows in the supermarket model, proctable.Row.ArrivalRate). A new process
// is not among them, so it fails TestProcessTable until it declares its
// row.
var pending = map[string]string{}

func TestProcessTable(t *testing.T) {
	o := proctable.Options{SlowBins: 12, SlowBalls: 3000, Checks: []uint64{1, 2, 3, 17, 64, 65, 200}, LawTrials: 40000, Pending: pending}
	if testing.Short() {
		o.SlowBalls, o.LawTrials = 1000, 10000
	}
	proctable.Run(t, table, o)
}
