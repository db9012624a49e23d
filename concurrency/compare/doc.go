// Package compare sets concurrent runs (concurrency.Result) beside the
// sequential models of their rule, as balloc concurrent does: the delayed
// model replaying a run's own ages and with i.i.d. ages of their law, the
// rule on fresh loads, and the delayed and batched models at the ages'
// p99 (Run); with balls that leave, the sequential supermarket run and the
// mean field's fixed point (Departures). A Row is one run and its
// comparisons, its JSON the command's --format json; Print and
// PrintDepartures write the command's tables. The sequential runs use
// trial numbers 2^20 and up, so their choices are independent of the
// run's, and every figure is a function of the run and the seed.
package compare
