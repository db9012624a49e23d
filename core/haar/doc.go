// Package haar preprocesses a graph for the haar allocation strategy of
// Bansal & Feldheim, "The Power of Two Choices in Graphical Allocation": a
// binary hierarchical decomposition T of the vertices, one flow per internal
// node of T that routes the node's Haar demand inside its set, and for every
// edge a law over the nodes whose flows use it, as alias tables in the flat
// form kernels.Haar reads.
//
// Promises:
//   - Build is deterministic: the same graph and Options give the same Plan.
//   - Every set of T is a contiguous range of the renumbered vertices
//     (Plan.Order), and T is stored as a heap (root 1, children 2h, 2h+1),
//     so an allocation updates the sums of a vertex's ancestors by index
//     arithmetic alone.
//   - Each flow meets its node's demand exactly up to floating-point
//     rounding (the electrical flow's solver residual is routed on a spanning
//     tree), and the drifts of different nodes are orthogonal.
//   - Every edge's law sums to one, the ∅ outcome ("no node, fair coin")
//     taking the rest, and its alias table reproduces it to 2^-32.
package haar
