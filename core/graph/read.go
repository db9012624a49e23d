package graph

// STUB: replaced by the file-reader work.

// ReadGraphFile reads a graph file (SNAP edge list or Matrix Market).
func ReadGraphFile(spec, path string, clean Clean) (*Graph, error) {
	panic("graph: ReadGraphFile not written yet")
}

// ReadHyperFile reads a hypergraph file (one hyperedge per line).
func ReadHyperFile(spec, path string, n uint64, clean Clean) (*Hypergraph, error) {
	panic("graph: ReadHyperFile not written yet")
}
