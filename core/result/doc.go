// Package result is what a trial reports: Result (the JSON record of the
// README's Output table), the snapshots its engines take (Snapshot,
// Checkpoint, a load histogram), the measures that make them from loads in
// O(n) or O(levels) (MeasureUnit, MeasureReal, Summary), and a fluid
// limit set beside simulated histograms (CompareTheory).
package result
