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
		a := uint64(1)
		if uint64(v) < q {
			a = 2
		}
		if a > count { // the step does not fit: the rest is owed
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
