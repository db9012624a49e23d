// Package optimal computes, by exact dynamic programming, the policy of
// Two-Thinning and K-Thinning that minimises the expected maximum load after
// m balls in n bins, its exact expected value, and the exact value of the
// fixed-threshold policies beside it.
//
// # The processes
//
// Two-Thinning (Feldheim and Gurel-Gurevich, "The power of thinning in
// balanced allocation", Electron. Commun. Probab. 26, 2021, §1): each ball
// is offered an independent uniform bin; an overseer, who sees every load,
// either allocates the ball there or rejects it, and then the ball goes to a
// new independent uniform bin with no further choice. K-Thinning (Feldheim and
// Li, "Load balancing under d-thinning", Electron. Commun. Probab. 25,
// 2020, as d-thinning; A. Vari-Kakas, "Reinforcement Learning
// Meets Balls into Bins", Cambridge Part II dissertation, github
// varikakasandor/dissertation-balls-into-bins, Chapter 3 §"K-Thinning"):
// up to K independent uniform samples, with replacement; any of the first
// K − 1 may be kept, and the K-th is kept whatever its load. K = 2 is
// Two-Thinning.
//
// # The optimal policy
//
// The overseer minimises E[max load after m balls] and may use the whole
// load vector (the "given the whole load vector"; the dissertation's
// DP, Chapter 3 §"Dynamic Programming", does the same). Bins are
// exchangeable, so the state before a ball is the sorted load vector s (a
// partition of t, the balls placed, into at most n parts), and within a
// ball the sampled bin's load and the samples left. Let W(s') be the value
// of state s' before the next ball, W = the maximum load of s' when s' holds
// m balls. For a ball at state s whose sampled load ℓ occurs on c_ℓ of the
// n bins, write w_ℓ = W(s with one bin of load ℓ raised to ℓ + 1). With k
// samples left (this one included),
//
//	U_1(s) = Σ_ℓ (c_ℓ/n) w_ℓ                  (the K-th sample is kept)
//	U_k(s) = Σ_ℓ (c_ℓ/n) min(w_ℓ, U_{k−1}(s))  (keep, or reject and go on)
//
// and W(s) = U_K(s). A rejected sample is forgotten: the next one is
// independent of it, so U_{k−1}(s) does not depend on which bin was
// rejected. The dissertation writes the same recursion over thresholds (a
// "slicing" policy keeps loads up to a state-dependent threshold, its
// Lemma 3.1); the minimum per load above is at least as general (a policy
// may keep any set of loads), and the two values agree (tested for tiny n,
// m against brute force over unsorted vectors).
//
// Choices: a tie w_ℓ = U_{k−1} keeps the sample (the value is the same
// either way); the policy depends only on the state, not on the history
// (Feldheim–Gurel-Gurevich's strategy counts primary allocations, a history
// the optimum does not need: the process is a Markov decision process on
// load vectors with a terminal cost, so a Markov deterministic policy is
// optimal). Values are float64 sums of the exact recursion: exact up to
// rounding (about 1e-15 relative here).
//
// # Fixed thresholds
//
// balloc's two-thinning --threshold θ keeps a sample whose load is below
// t/n + θ, t the balls placed (core/process/twothinning.go); k-thinning
// --thresholds θ1,…,θ(K−1) keeps sample j < K when its load is below
// t/n + θj. For integer loads that is load < ⌈(t + a)/n⌉ with a = ⌈nθ⌉,
// so every θ in ((a−1)/n, a/n] is the same policy and the grid θ = a/n
// holds them all. The "absolute" reading keeps a sample whose load is below
// a constant L. Each such policy's exact value is the same recursion with
// the minimum replaced by the policy's decision (EvaluateFixed).
//
// # States
//
// A level t holds the partitions of t into at most n parts, ranked in
// lexicographic order of their parts in descending order (rank, from the
// counts P(t, k, j) of partitions of t into at most j parts each at most k),
// so that a state's successor is an array index. The number of states and
// of moves (state, distinct load) is known from the counts before anything
// is allocated (Estimate), and a size over the memory available is refused.
package optimal
