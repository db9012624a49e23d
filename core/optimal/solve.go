package optimal

import "fmt"

// Policy is the optimal decision table of K-Thinning on a Space: for each
// state below level m and each number of samples left c ∈ [2, K], the set
// of distinct loads (bit i: the state's move i) whose sample is kept.
type Policy struct {
	Space *Space
	K     int
	masks []uint64 // masks[g·(K−1) + c − 2], g the global state
}

// Keep says whether the optimal policy keeps a sample of move i at state s
// of level t with c ≥ 2 samples left (this one included).
func (p *Policy) Keep(t, s, i, c int) bool {
	g := p.Space.start[t] + uint64(s)
	return p.masks[g*uint64(p.K-1)+uint64(c-2)]>>uint(i)&1 == 1
}

// Solve is the optimal expected maximum load of K-Thinning (K = 2:
// Two-Thinning) on sp by backward induction (the package comment's
// recursion), and the optimal policy's table when policy is set.
func Solve(sp *Space, k int, policy bool) (float64, *Policy, error) {
	if k < 2 || k > 64 {
		return 0, nil, fmt.Errorf("optimal: K = %d: want 2 ≤ K ≤ 64", k)
	}
	var pol *Policy
	if policy {
		pol = &Policy{Space: sp, K: k, masks: make([]uint64, sp.start[sp.M]*uint64(k-1))}
	}
	// Levels grow with t (raising a largest part is one-to-one), so two
	// buffers of level m's size hold every level.
	next := append([]float64(nil), sp.final...)
	cur := make([]float64, len(next))
	w := make([]float64, maxMoves)
	for t := sp.M - 1; t >= 0; t-- {
		cur = cur[:sp.Level(t)]
		for s := range cur {
			var masks []uint64
			if pol != nil {
				g := sp.start[t] + uint64(s)
				masks = pol.masks[g*uint64(k-1) : (g+1)*uint64(k-1)]
			}
			cur[s] = optimalAt(sp.MovesOf(t, s), next, float64(sp.N), k, masks, w)
		}
		next, cur = cur, next[:cap(next)]
	}
	return next[0], pol, nil
}

// optimalAt is U_K at one state: U_1 = Σ (c_ℓ/n) w_ℓ, then
// U_c = Σ (c_ℓ/n) min(w_ℓ, U_{c−1}), a tie keeping the sample; masks[c−2]
// gets the kept moves when masks is not nil; w is scratch of maxMoves for
// the successors' values, each read once.
func optimalAt(moves []Move, next []float64, n float64, k int, masks []uint64, w []float64) float64 {
	var u float64
	for i, mv := range moves {
		w[i] = next[mv.Next]
		u += float64(mv.Count) * w[i]
	}
	u /= n
	for c := 2; c <= k; c++ {
		var sum float64
		var keep uint64
		for i, mv := range moves {
			if w[i] <= u {
				sum += float64(mv.Count) * w[i]
				keep |= 1 << uint(i)
			} else {
				sum += float64(mv.Count) * u
			}
		}
		if masks != nil {
			masks[c-2] = keep
		}
		u = sum / n
	}
	return u
}
