package kernels

import "math/bits"

// Join-Idle-Queue (Lu, Xie, Kliot, Geller, Larus and Greenberg,
// "Join-Idle-Queue: a novel load balancing algorithm for dynamically
// scalable web services", Performance Evaluation 68(11), 2011): a server
// that becomes idle registers in its dispatcher's I-queue; a job goes to a
// registered idle server if there is one, else to a uniformly random
// server. With one dispatcher every idle server is registered (it joins
// when its last job leaves and leaves the I-queue when the dispatcher sends
// it a job), so the I-queue is exactly the set of idle bins (load 0).
//
// Which idle server takes the job does not change the law of the loads'
// profile (the servers are exchangeable and service is memoryless); balloc
// takes a uniformly random one — the j-th idle bin in index order, j
// uniform — so that the next bin's law is a function of the loads alone:
// the process is symmetric, the histogram engine runs it exactly, and the
// direct engine's load vector has an exact law the tests check.
//
// Stream per ball (static loop and the supermarket's arrivals on the
// direct engine): one PCG32.Bounded draw, of the idle bins' count when one
// is idle (then the j-th idle bin in index order), else of n. A departure
// draws one PCG32.Bounded(n), as in every supermarket loop. On level counts
// an arrival with an idle bin draws nothing (level 0 is the only choice),
// else one rank.

// IdleSet is the dispatcher's I-queue: the idle bins as a bitset, with a
// Fenwick tree over its words' popcounts, so that a bin joins or leaves in
// O(log n) and the j-th idle bin in index order is found in O(log n).
type IdleSet struct {
	bits  []uint64
	tree  []uint32 // 1-based Fenwick tree over the words' popcounts
	top   int      // the largest power of two ≤ len(bits), for the descent
	count uint32   // idle bins
}

// NewIdleSet returns the set of the bins of loads that hold no ball.
func NewIdleSet[L Load](loads []L) *IdleSet {
	words := (len(loads) + 63) / 64
	q := &IdleSet{bits: make([]uint64, words), tree: make([]uint32, words+1), top: 1}
	for q.top*2 <= words {
		q.top *= 2
	}
	for i, v := range loads {
		if v == 0 {
			q.bits[i>>6] |= 1 << (i & 63)
		}
	}
	for w, b := range q.bits { // the tree in O(words): each node passes its sum to its parent
		c := uint32(bits.OnesCount64(b))
		q.count += c
		q.tree[w+1] += c
		if p := (w + 1) + (w+1)&-(w+1); p <= words {
			q.tree[p] += q.tree[w+1]
		}
	}
	return q
}

// Count is the number of idle bins.
func (q *IdleSet) Count() uint32 { return q.count }

// Join registers bin i (it has become idle).
func (q *IdleSet) Join(i uint32) {
	q.bits[i>>6] |= 1 << (i & 63)
	for w := int(i>>6) + 1; w < len(q.tree); w += w & -w {
		q.tree[w]++
	}
	q.count++
}

// Take removes and returns the j-th idle bin in index order, j < Count().
func (q *IdleSet) Take(j uint32) uint32 {
	pos := 0 // words wholly before the j-th idle bin
	for step := q.top; step > 0; step >>= 1 {
		if next := pos + step; next < len(q.tree) && q.tree[next] <= j {
			pos = next
			j -= q.tree[next]
		}
	}
	w := q.bits[pos]
	for ; j > 0; j-- {
		w &= w - 1
	}
	b := bits.TrailingZeros64(w)
	q.bits[pos] &^= 1 << b
	for x := pos + 1; x < len(q.tree); x += x & -x {
		q.tree[x]--
	}
	q.count--
	return uint32(pos*64 + b)
}

// JIQ places count balls on the loads by Join-Idle-Queue without
// departures (the static process: an idle bin, one holding no ball, if
// there is one, else a uniform bin), keeping q, the idle bins of loads, up
// to date; it returns the new maximum load.
func JIQ[L Load](loads []L, r *PCG32, count uint64, maxLoad L, q *IdleSet) L {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	for ; count > 0; count-- {
		var i uint32
		if k := q.count; k > 0 {
			var j uint32
			s, j = boundedFast(s, inc, k)
			i = q.Take(j)
		} else {
			s, i = boundedFast(s, inc, n)
		}
		l := loads[i] + 1
		loads[i] = l
		maxLoad = max(maxLoad, l)
	}
	r.state = s
	return maxLoad
}

// IdleList is the supermarket's I-queue on the direct engine: the idle
// bins in a slice, each bin's place in it beside, so that a bin joins at the
// end and leaves by taking the last one's place, both O(1). A uniform entry
// of the list is a uniform idle bin, which is all the rule asks (the order
// of the list is not the bins' index order, as the static loop's IdleSet
// is: the two engines' draws differ, their laws do not).
type IdleList struct {
	bins []uint32
	pos  []uint32
}

// NewIdleList returns the list of the bins of loads that hold no ball, in
// index order.
func NewIdleList[L Load](loads []L) *IdleList {
	q := &IdleList{bins: make([]uint32, 0, len(loads)), pos: make([]uint32, len(loads))}
	for i, v := range loads {
		if v == 0 {
			q.pos[i] = uint32(len(q.bins))
			q.bins = append(q.bins, uint32(i))
		}
	}
	return q
}

// supermarketIdleDirect is SupermarketDirect for Join-Idle-Queue: the
// supermarket's idle list starts as the idle bins of the loads at its first
// event; a bin joins it when a departure empties it, and an arrival takes
// a uniform entry (one PCG32.Bounded of the list's length), else a uniform
// bin.
func supermarketIdleDirect[L Load](loads []L, r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	if sm.idleList == nil {
		sm.idleList = NewIdleList(loads)
	}
	idle, pos := sm.idleList.bins, sm.idleList.pos
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		var c, i uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			if s, i = boundedFast(s, inc, n); loads[i] > 0 {
				l := loads[i]
				loads[i] = l - 1
				t.down(uint64(l))
				if l == 1 {
					pos[i] = uint32(len(idle))
					idle = append(idle, i) // within its capacity n: no allocation
				}
			}
			t.Event++
			continue
		}
		if k := uint32(len(idle)); k > 0 {
			var j uint32
			s, j = boundedFast(s, inc, k)
			i = idle[j]
			last := idle[k-1]
			idle[j], pos[last] = last, j
			idle = idle[:k-1]
		} else {
			s, i = boundedFast(s, inc, n)
		}
		l := loads[i]
		loads[i] = l + 1
		t.up(uint64(l))
		t.Event++
	}
	sm.idleList.bins = idle
	r.state = s
}

// supermarketIdleLevels is SupermarketLevels for Join-Idle-Queue: an
// arrival joins level 0 while a bin is idle (S_1 < n), else a bin of a
// uniform rank (ranks count from the heaviest: levelOf).
func supermarketIdleLevels(r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	n := t.S[0]
	if n <= MaxBins {
		supermarketIdleLevels32(r, count, sm, t)
		return
	}
	for ; count > 0; count-- {
		if !sm.arrive.Flip(r) {
			var x uint64
			r.state, x = rank(r.state, r.inc(), n)
			if k := levelOf(t.S, x); k > 0 {
				t.down(k)
			}
			t.Event++
			continue
		}
		if t.S[1] < n {
			t.up(0)
		} else {
			var x uint64
			r.state, x = rank(r.state, r.inc(), n)
			t.up(levelOf(t.S, x))
		}
		t.Event++
	}
}

// supermarketIdleLevels32 is supermarketIdleLevels below 2^32 bins, with
// the tally's slices and counters in locals as SupermarketLevels keeps
// them: the same draws (rank is bounded there).
func supermarketIdleLevels32(r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	s, inc := r.state, r.inc()
	n := uint32(t.S[0])
	thresh := -n % n
	S, acc, since := t.S, t.Acc, t.since
	ev, arrivals, departures := t.Event, t.Arrivals, t.Departures
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		var c, x uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			s, x = boundedThresh(s, inc, n, thresh)
			if k := levelOf(S, uint64(x)); k > 0 {
				acc[k] += float64(S[k]) * float64(ev-since[k])
				since[k] = ev
				S[k]--
				departures++
				if S[k] == 0 {
					S = S[:k+1]
				}
			}
			ev++
			continue
		}
		k := uint64(1) // an idle bin joins level 1
		if S[1] == uint64(n) {
			s, x = boundedThresh(s, inc, n, thresh)
			k = levelOf(S, uint64(x)) + 1
		}
		if k == uint64(len(S)-1) { // a new top level
			t.S, t.Event = S, ev
			t.grow()
			S, acc, since = t.S, t.Acc, t.since
		}
		acc[k] += float64(S[k]) * float64(ev-since[k])
		since[k] = ev
		S[k]++
		arrivals++
		ev++
	}
	r.state = s
	t.Total += (arrivals - t.Arrivals) - (departures - t.Departures) // mod 2^64: the start's balls stay
	t.S, t.Event, t.Arrivals, t.Departures = S, ev, arrivals, departures
}

// LevelsJIQ places count balls on level counts by Join-Idle-Queue without
// departures: a bin of load 0 while there is one (a rank among them: one
// draw, as the direct loop's), else a bin of a uniform rank. Levels order
// the bins from the lightest, so the idle bins are the first ranks.
func LevelsJIQ(lv *Levels, r *PCG32, count uint64) {
	for ; count > 0; count-- {
		k := lv.n
		if lv.Min() == 0 {
			k = lv.Count(0)
		}
		var x uint64
		r.state, x = rank(r.state, r.inc(), k)
		lv.Move(lv.Level(x))
	}
}
