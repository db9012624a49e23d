// Package graph holds the structures that restrict a ball's choices: graphs
// (a ball samples an edge) and hypergraphs (a ball samples a hyperedge, then
// bins in it). Implicit families (cycle, path, torus, hypercube, complete,
// cyclic intervals) compute an edge from its index and need no memory per
// edge; generated and loaded ones are flat arrays (an edge array and CSR
// adjacency). Every structure numbers its edges canonically, and the
// allocation loops in kernels/ sample an edge index uniformly, so an implicit
// family and its materialized twin give the same trial from the same seed.
package graph
