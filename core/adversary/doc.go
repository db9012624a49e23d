// Package adversary runs two-choice allocation under insertions and
// deletions named by an oblivious sequence (balloc adversary): Greedy
// against the modulated rule, on the same sequence and the same draws.
//
// # The model
//
// Bansal and Kuszmaul, "Balanced allocations: the heavily loaded case with
// deletions", FOCS 2022 (arXiv 2205.06558), abstract: each ball is assigned
// two random bins i, j ∈ [n] and must go to one of them; balls are inserted
// and deleted by a sequence fixed in advance (an oblivious adversary), with
// up to m balls present at a time. Greedy puts each ball in the less full of
// its two bins. The paper shows a sequence on 4 bins after which Greedy's
// maximum load is m/4 + Ω(√m) with probability Ω(1), the order of one
// choice, and a strategy, ModulatedGreedy, whose maximum load is
// m/n + O(log m) at any moment with high probability.
//
// balloc's reading, decided here:
//   - A sequence is a list of operations: insert a new ball (the balls are
//     numbered 1, 2, … in insertion order), or delete ball k, which must have
//     been inserted and not yet deleted. Deleting "ball k" removes it from
//     the bin the strategy chose for it: the adversary names balls, never
//     bins, and sees nothing of the run.
//   - A ball's two bins are drawn when it is inserted, independent and
//     uniform with replacement (i = j is possible: the ball then has one
//     bin). A deleted ball is never reinserted (the paper's reinsertion
//     setting, where a ball keeps its pair, is not modelled).
//   - Greedy: the less loaded of i and j; ties to i, which is uniformly
//     random ties in law (i and j are exchangeable).
//   - The gap is max load − (balls present)/n after each operation: balloc
//     reports it at the end, its largest value over the sequence, and at
//     checkpoints. Beside it the overload, (largest max load over the
//     sequence) − P/n with P the most balls present at once: the paper's
//     m/n + X form, with m read as P.
//
// # The modulated rule
//
// The text of the paper was not reachable from where this was written (the
// abstract only), so ModulatedGreedy's exact definition could not be read.
// balloc runs a modulated rule of width w ≥ 1 that has the property the
// name and the abstract describe, a Greedy whose preference is softened in
// proportion to the load difference: a ball with bins i and j goes to i
// with probability clamp(1/2 + (load j − load i)/(2w), 0, 1), else to j.
// At a difference of w or more it is Greedy; at equal loads a fair coin. Its
// draws are integers: c = Bounded(2w), to i when c < w + load j − load i.
// The default width is ⌈log₂ P⌉ (at least 1), P the sequence's peak of balls
// present, the scale of the paper's O(log m). Until the rule is checked
// against the paper's definition its numbers are this rule's, not the
// paper's ModulatedGreedy's.
//
// # Built-in sequences
//
// The paper's lower-bound sequence could not be read either; the
// built-ins are sequences balloc defines, each oblivious and described by
// its name: `alternate:M` (insert M balls, then delete the odd-numbered
// ones, 1, 3, 5, …), `refill:M` (alternate, then insert ⌈M/2⌉ new balls,
// back to M present), `random-half:M[,S]` (insert M, then delete ⌊M/2⌋ of
// them in an order drawn from seed S, default 1, before the run: a fixed,
// randomly chosen sequence) and `sliding:M,R` (insert M, then R times
// delete the oldest ball present and insert a new one).
//
// # Streams
//
// Trial k of a run seeded s draws every ball's pair from
// kernels.TrialStream(s, k, LaneChoices), two Bounded(n) an insertion, and
// the modulated rule's coin, Bounded(2w), from the trial's LaneNoise
// stream; a deletion draws nothing. Greedy and the modulated rule in one
// trial therefore see the same pairs, ball for ball (common random
// numbers), and each trial is a pure function of (sequence, n, rule, w,
// seed, trial).
package adversary
