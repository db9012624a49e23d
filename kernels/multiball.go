package kernels

// Loops of the processes that place several balls per step: Twinning and
// Packing (one uniform sample, one or more balls into it) and (k,d)-choice
// (d samples, k balls). A run still counts balls: a step whose balls do not
// all fit in the chunk places what fits and owes the rest to its bins
// (MultiStep, KDState), which the next call places first, before any new
// sample. So a chunk boundary (a checkpoint, the end of a progress chunk)
// may fall inside a step, and the last step of a run is cut to fit exactly
// m balls.

// MultiStep is what Twinning and Packing carry between calls: the balls the
// step in progress still owes its bin, and the samples drawn so far.
type MultiStep struct {
	Owed    uint64 // balls of the step in progress not yet placed
	Bin     uint64 // their bin (a load array's index; on Levels, the bin's load)
	Samples uint64 // bins sampled so far
}

// ceilDiv is ⌈t/n⌉.
func ceilDiv(t, n uint64) uint64 {
	q := t / n
	if q*n != t {
		q++
	}
	return q
}

// payOwed places up to count balls owed by the step in progress and
// returns how many it placed.
func payOwed[L Load](loads []L, st *MultiStep, count uint64, maxLoad L) (uint64, L) {
	k := min(st.Owed, count)
	if k == 0 {
		return 0, maxLoad
	}
	v := loads[st.Bin] + L(k)
	loads[st.Bin] = v
	st.Owed -= k
	return k, max(maxLoad, v)
}

// Twinning places count balls by Twinning, t balls placed before: a step
// samples a uniform bin and puts 2 balls on it if its load x is below the
// average W/n (W the balls placed before the step), else 1. For an integer
// load x < W/n ⇔ x < ⌈W/n⌉, which the loop keeps as q beside q·n, raised
// as W passes it: no division a step.
//
// Stream: one PCG32.Bounded(n) per step. 1 ≤ len(loads) ≤ MaxBins.
func Twinning[L Load](loads []L, r *PCG32, t, count uint64, st *MultiStep, maxLoad L) L {
	k, maxLoad := payOwed(loads, st, count, maxLoad)
	t, count = t+k, count-k
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	q := ceilDiv(t, n64)
	qn := q * n64
	samples := st.Samples
	for count > 0 {
		var i uint32
		s, i = boundedFast(s, inc, n)
		samples++
		v := loads[i]
		a := 1 + uint64(b2i(uint64(v) < q)) // no branch: the test is a coin flip to the predictor
		if a > count {                      // the step does not fit: the rest is owed
			st.Owed, st.Bin, a = a-count, uint64(i), count
		}
		v += L(a)
		loads[i] = v
		maxLoad = max(maxLoad, v)
		count -= a
		for t += a; t > qn; qn += n64 {
			q++
		}
	}
	st.Samples = samples
	r.state = s
	return maxLoad
}

// Packing places count balls by Packing, t balls placed before: a step
// samples a uniform bin; if its load x is below the average W/n it is
// raised to ⌈W/n⌉ + 1 (⌈W/n⌉ + 1 − x ≥ 2 balls), else it takes 1 ball.
//
// Stream: one PCG32.Bounded(n) per step. 1 ≤ len(loads) ≤ MaxBins.
func Packing[L Load](loads []L, r *PCG32, t, count uint64, st *MultiStep, maxLoad L) L {
	k, maxLoad := payOwed(loads, st, count, maxLoad)
	t, count = t+k, count-k
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	n64 := uint64(n)
	q := ceilDiv(t, n64)
	qn := q * n64
	samples := st.Samples
	for count > 0 {
		var i uint32
		s, i = boundedFast(s, inc, n)
		samples++
		v := loads[i]
		a := uint64(1)
		if x := uint64(v); x < q {
			a = q + 1 - x
		}
		if a > count {
			st.Owed, st.Bin, a = a-count, uint64(i), count
		}
		v += L(a)
		loads[i] = v
		maxLoad = max(maxLoad, v)
		count -= a
		for t += a; t > qn; qn += n64 {
			q++
		}
	}
	st.Samples = samples
	r.state = s
	return maxLoad
}

// LevelsTwinning places count balls by Twinning (packing false) or Packing
// (packing true) on the histogram's levels, t balls placed before: a
// uniform rank is a uniform bin; its load decides the step as on a load
// array, and the bin climbs one level a ball (the bins of a level are
// alike, so moving "a bin of load x" and then "a bin of load x+1" is moving
// the one bin twice). st.Bin holds the load of the bin that is owed balls.
//
// Stream: one rank per step.
func LevelsTwinning(lv *Levels, r *PCG32, t, count uint64, st *MultiStep, packing bool) {
	s, inc, n := r.state, r.inc(), lv.n
	for count > 0 {
		if st.Owed == 0 {
			var x uint64
			s, x = rank(s, inc, n)
			st.Samples++
			load := lv.lo + uint64(lv.Level(x))
			st.Bin, st.Owed = load, 1
			if q := ceilDiv(t, n); load < q {
				st.Owed = 2
				if packing {
					st.Owed = q + 1 - load
				}
			}
		}
		for ; st.Owed > 0 && count > 0; st.Owed-- {
			lv.Move(int(st.Bin - lv.lo))
			st.Bin++
			count--
			t++
		}
	}
	r.state = s
}

// KDState is what (k,d)-choice carries between calls: the step's scratch
// (its d sampled bins, the k kept), the balls the step in progress still
// owes (pick[next:owe]), and the samples drawn so far.
type KDState struct {
	k, d      int
	idx, pick []uint32 // the d sampled bins; the slots' bins in ball order (the first k take balls)
	key       []uint64 // the loads of pick, at the step's start
	val       []uint64 // the loads of the d slots
	next, owe int
	Samples   uint64 // bins sampled so far (d a step)
	// the histogram's: the ranks and levels of the d slots, and the load
	// at which each kept slot's bin takes its ball
	rk, at    []uint64
	lvl, slot []int
}

// NewKDState is the state of (k,d)-choice, 1 ≤ k ≤ d.
func NewKDState(k, d int) *KDState {
	return &KDState{k: k, d: d, idx: make([]uint32, d), pick: make([]uint32, d), key: make([]uint64, k), val: make([]uint64, d)}
}

// kdRanked is the largest d whose steps rank every slot by counting
// (d(d−1) comparisons without a branch on the loads); above it the k
// least are kept by insertion (about d·k moves at worst, with branches the
// predictor misses).
const kdRanked = 12

// KDChoice places count balls by (k,d)-choice: a step draws d bins
// uniformly with replacement (d slots: a bin drawn twice is two slots),
// ranks the slots by their loads at the step's start, ties by position,
// and puts one ball on each of the k first, in that order (a bin holding
// two of them takes two balls). For d ≤ kdRanked every slot's place is
// counted; above, the k first are kept by insertion: the same order. The
// slots are i.i.d., so ties by position are uniformly random ties in law
// (see dchoice.go); with k = 1 this is DChoice, draw for draw.
//
// The samples of a block of steps are drawn ahead (as staging.go's loops
// do past L2), never more steps than the balls left start, whatever the
// array's size: at n = 10^4 that ran 12–13 ns a ball at k = 2, d = 4 and
// k = 3, d = 6 against 16–18 drawing each step's samples in its loop
// (min of 3, BenchmarkMultiBall's kernel alone).
//
// Stream: d PCG32.Bounded(n) per step, as DChoice draws them. 1 ≤ k ≤ d,
// 1 ≤ len(loads) ≤ MaxBins.
func KDChoice[L Load](loads []L, r *PCG32, count uint64, st *KDState, maxLoad L) L {
	for ; st.next < st.owe && count > 0; st.next++ {
		b := st.pick[st.next]
		v := loads[b] + 1
		loads[b] = v
		maxLoad = max(maxLoad, v)
		count--
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	d, k := st.d, st.k
	var stage [2 * stageBalls]uint32
	buf := stage[:]
	if d > len(buf) {
		buf = st.idx // one step at a time
	}
	per := uint64(len(buf) / d) // steps a block
	steps := uint64(0)
	for count > 0 {
		block := min(per, (count+uint64(k)-1)/uint64(k))
		s = fillBounded(buf[:block*uint64(d)], s, inc, n)
		for j := range block {
			kdOrder(loads, buf[j*uint64(d):(j+1)*uint64(d)], st)
			c := k
			if uint64(c) > count { // the step does not fit: pick[c:k] is owed
				c = int(count)
				st.next, st.owe = c, k
			}
			for _, b := range st.pick[:c] {
				v := loads[b] + 1
				loads[b] = v
				maxLoad = max(maxLoad, v)
			}
			count -= uint64(c)
		}
		steps += block
	}
	st.Samples += steps * uint64(d)
	r.state = s
	return maxLoad
}

// kdOrder puts the k least loaded of the slots idx, in ball order, in
// st.pick[:k]: for d ≤ kdRanked by counting each slot's place (the slots
// lighter than it, and the earlier ones as light: a permutation), above by
// insertion.
func kdOrder[L Load](loads []L, idx []uint32, st *KDState) {
	if len(idx) > kdRanked {
		kdInsert(loads, idx, st.pick, st.key, st.k)
		return
	}
	rankSlots(loads, idx, st.val[:len(idx)], st.pick)
}

// rankSlots writes each slot's bin at its place in the order: the slots
// lighter than it, and the earlier ones as light (a permutation), counted
// in a register, d − 1 comparisons a slot without a branch on the loads.
func rankSlots[L Load](loads []L, idx []uint32, val []uint64, pick []uint32) {
	for j, b := range idx {
		val[j] = uint64(loads[b])
	}
	for i, vi := range val {
		place := 0
		for _, vj := range val[:i] {
			place += b2i(vj <= vi)
		}
		for _, vj := range val[i+1:] {
			place += b2i(vj < vi)
		}
		pick[place] = idx[i]
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kdInsert keeps in pick[:k] the k least loaded slots of idx, stable: by
// insertion, a later slot passing an earlier one only when strictly lighter.
func kdInsert[L Load](loads []L, idx, pick []uint32, key []uint64, k int) {
	kept := 0
	for _, b := range idx {
		v := uint64(loads[b])
		if kept == k {
			if v >= key[k-1] {
				continue
			}
			kept--
		}
		p := kept
		for ; p > 0 && key[p-1] > v; p-- {
			key[p], pick[p] = key[p-1], pick[p-1]
		}
		key[p], pick[p] = v, b
		kept++
	}
}

// LevelsKDChoice places count balls by (k,d)-choice on the histogram's
// levels: d uniform ranks (a rank is a bin of the step's start, the same
// rank the same bin), their levels, the k least by level, ties by position
// as on a load array; each kept slot's bin takes its ball at its level plus
// the balls its bin took earlier in the step.
//
// Stream: d ranks per step.
func LevelsKDChoice(lv *Levels, r *PCG32, count uint64, st *KDState) {
	if st.rk == nil {
		st.rk, st.at, st.lvl, st.slot = make([]uint64, st.d), make([]uint64, st.k), make([]int, st.d), make([]int, 0, st.k)
	}
	for ; st.next < st.owe && count > 0; st.next++ {
		lv.Move(int(st.at[st.next] - lv.lo))
		count--
	}
	s, inc, n := r.state, r.inc(), lv.n
	k := st.k
	slot := st.slot // the kept slots' positions
	for count > 0 {
		for j := range st.rk {
			s, st.rk[j] = rank(s, inc, n)
			st.lvl[j] = lv.Level(st.rk[j])
		}
		st.Samples += uint64(st.d)
		slot = slot[:0]
		for j, v := range st.lvl {
			if len(slot) == k {
				if v >= st.lvl[slot[k-1]] {
					continue
				}
				slot = slot[:k-1]
			}
			p := len(slot)
			slot = append(slot, j)
			for ; p > 0 && st.lvl[slot[p-1]] > v; p-- {
				slot[p] = slot[p-1]
			}
			slot[p] = j
		}
		for a, j := range slot {
			at := lv.lo + uint64(st.lvl[j])
			for _, e := range slot[:a] {
				if st.rk[e] == st.rk[j] {
					at++
				}
			}
			st.at[a] = at
		}
		c := k
		if uint64(c) > count {
			c = int(count)
			st.next, st.owe = c, k
		}
		for _, at := range st.at[:c] {
			lv.Move(int(at - lv.lo))
		}
		count -= uint64(c)
	}
	r.state = s
}
