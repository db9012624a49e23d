package kernels

// RandomSubsets fills members, len(members)/k consecutive blocks of k, each
// with a uniformly random k-subset of [0, n) by Floyd's algorithm (Bentley &
// Floyd, "A sample of brilliance", CACM 1987): for j = n−k, ..., n−1 draw t
// uniform in [0, j] and add t, or j when t is already in. Each block is in
// the order the algorithm adds its elements. 1 ≤ k ≤ n.
//
// Stream: k PCG32.Bounded draws per block.
func RandomSubsets(members []uint32, n uint32, k int, r *PCG32) {
	for b := 0; b+k <= len(members); b += k {
		set := members[b : b+k]
		for i := range k {
			j := n - uint32(k) + uint32(i)
			t := r.Bounded(j + 1)
			for _, x := range set[:i] {
				if x == t {
					t = j
					break
				}
			}
			set[i] = t
		}
	}
}
