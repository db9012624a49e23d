package kernels

// Balls that leave: the supermarket model's event loops on both engines,
// the tally of bins per level they keep for time averages, and the
// deletions of the heavily loaded model (core/engine/dynamic.go drives
// them; core/process/dynamic.go says which processes place by a Placement).
//
// The supermarket model (Vvedenskaya, Dobrushin, Karpelevich 1996;
// Mitzenmacher, "The power of two choices in randomized load balancing",
// IEEE TPDS 2001): n bins (queues), balls (jobs) arrive at rate λn and are
// placed by the process, and every non-empty bin serves one ball at rate 1.
// Uniformized at total rate n(1+λ), the chain jumps at the events of one
// Poisson process, each an arrival with probability λ/(1+λ), else a
// "potential departure" from a uniformly random bin, a real one when that
// bin is non-empty. The jump chain is exactly the continuous-time model
// watched at its events, and the times between events are i.i.d.
// Exp(n(1+λ)), independent of the jumps.
//
// Stream per event: the arrival coin (Bernoulli.Flip); an arrival then draws
// the process's sample(s) as Placement says (its β coin first when
// 0 < β < 1, then D PCG32.Bounded(n) on a two-choice-like step, or one on a
// one-choice step); a departure draws one PCG32.Bounded(n). The histogram
// loop draws ranks instead of bins (rank: Bounded, or Bounded64 beyond
// 2^32 bins), the same count.

// Placement is the decision of a placement process whose next bin depends
// on the sampled loads alone: with probability Beta the least loaded of D
// bins drawn uniformly with replacement (ties at random), else one uniform
// bin. One-choice is {1, 1}, d-choice {d, 1}, (1+β) {2, β}.
//
// Heavy > 0 makes the step Quantile's instead (kernels/placer.go): the
// first uniform bin is kept unless it is among the Heavy heaviest, then a
// second uniform bin; Beta is then Mixed-Quantile's η and D is 2.
//
// Thetas non-empty makes it thinning's (kernels/placer.go): up to
// len(Thetas)+1 uniform samples, sample j kept when its load is below
// (balls present)/Bins + Thetas[j], the last whatever its load; D and Beta
// are then unused, and Bins must be set.
type Placement struct {
	D      int
	Beta   float64
	Heavy  uint64
	Thetas []float64
	Bins   uint64
	Retry  bool // Adaptive: samples until one is kept (Thetas {1}, ball i = present + 1)
	// Idle makes it Join-Idle-Queue's (kernels/jiq.go): an idle bin while
	// there is one, else one uniform bin; D and Beta are then {1, 1}.
	Idle bool
}

// placeRule is a Placement ready to draw: its β coin and its shape.
type placeRule struct {
	beta  Bernoulli
	d     int
	mixed bool    // 0 < β < 1: a β coin per ball
	one   bool    // every ball is one uniform sample (D = 1 or β = 0)
	heavy uint64  // Quantile's k heaviest; 0: the least of D
	thin  []int64 // thinning's ⌈n·θ_j⌉; nil: not thinning
	retry bool    // sample until kept (Adaptive)
	idle  bool    // Join-Idle-Queue: an idle bin first
}

func newPlaceRule(pl Placement) (placeRule, error) {
	b, err := NewBernoulli(pl.Beta)
	if err != nil {
		return placeRule{}, err
	}
	one := pl.D == 1 || pl.Beta == 0
	rule := placeRule{beta: b, d: pl.D, mixed: !one && pl.Beta < 1, one: one, heavy: pl.Heavy, idle: pl.Idle}
	if len(pl.Thetas) > 0 {
		if rule.thin, err = thinConstants(pl.Bins, pl.Thetas); err != nil {
			return placeRule{}, err
		}
		if pl.Retry { // ball i = present + 1: the limit (present + 1)/n + θ
			rule.thin[0]++
			rule.retry = true
		}
	}
	return rule, nil
}

// Supermarket holds an event loop's coins: arrivals with probability
// λ/(1+λ), and the placement's.
type Supermarket struct {
	arrive Bernoulli
	placeRule
	idleList *IdleList // Join-Idle-Queue on the direct engine: the idle bins, from the first event
}

// NewSupermarket returns the event loop's coins for arrival rate λ per bin
// (0 < λ < 1) and placement pl.
func NewSupermarket(lambda float64, pl Placement) (*Supermarket, error) {
	a, err := NewBernoulli(lambda / (1 + lambda))
	if err != nil {
		return nil, err
	}
	rule, err := newPlaceRule(pl)
	if err != nil {
		return nil, err
	}
	return &Supermarket{arrive: a, placeRule: rule}, nil
}

// LevelPlacer places balls on the histogram engine's Levels by a
// Placement, ball by ball on ranks: Levels orders the bins from the
// lightest, so the least loaded of D samples is the least rank. Stream per
// ball: the β coin (Bernoulli.Flip, when 0 < β < 1), then D rank draws (one
// on a one-choice step; rank: Bounded, or Bounded64 beyond 2^32 bins).
type LevelPlacer struct{ placeRule }

// NewLevelPlacer returns the placer of pl.
func NewLevelPlacer(pl Placement) (*LevelPlacer, error) {
	rule, err := newPlaceRule(pl)
	return &LevelPlacer{rule}, err
}

// Place puts count balls on lv.
func (p *LevelPlacer) Place(lv *Levels, r *PCG32, count uint64) {
	if p.thin != nil {
		panic("kernels: LevelPlacer: thinning reads the balls present; place through the process's level stepper")
	}
	if p.heavy > 0 {
		p.placeQuantile(lv, r, count)
		return
	}
	if p.idle {
		LevelsJIQ(lv, r, count)
		return
	}
	n := lv.n
	for ; count > 0; count-- {
		two := !p.one
		if p.mixed {
			two = p.beta.Flip(r)
		}
		var x uint64
		r.state, x = rank(r.state, r.inc(), n)
		if two {
			for k := 1; k < p.d; k++ {
				var y uint64
				r.state, y = rank(r.state, r.inc(), n)
				x = min(x, y)
			}
		}
		lv.Move(lv.Level(x))
	}
}

// Tally counts the bins at or above each level, S_k for k ≥ 1 (S[0] = n),
// and sums them over events for time averages. A bin's move changes one
// S_k, and Acc[k] is brought up to date only then (lazily: Acc[k] gains
// S_k once for every event since it was last brought up to date), so an
// event costs O(1) whatever the number of levels; Flush brings all of them
// up to date.
//
// Acc[k] sums S_k over the states after each event: a value set at event
// e0 and changed at event e1 held in the states after events e0+1 … e1.
// The time averages are over these states: the state after event j holds
// for the time to event j+1, whose mean, 1/(n(1+λ)), is the same for every
// j and independent of the jumps, so the average over events weighs every
// state by its expected holding time and is an unbiased estimate of the
// time average over the same stretch.
type Tally struct {
	S     []uint64  // S[k] = bins with load ≥ k; S[Top()+1] = 0 always
	Acc   []float64 // Σ of S[k] over the states after the events since the last TakeAcc
	since []uint64  // the event from which S[k] is not yet in Acc[k]
	Event uint64    // events run
	Total uint64    // balls in the bins
	// Arrivals and Departures are the events that placed and that removed
	// a ball (a departure drawn at an empty bin is neither).
	Arrivals, Departures uint64
	MaxEver              uint64 // the largest load any bin has held
}

// NewTally returns the tally of n empty bins.
func NewTally(n uint64) *Tally {
	return &Tally{S: []uint64{n, 0}, Acc: []float64{0, 0}, since: []uint64{0, 0}}
}

// Top is the largest load.
func (t *Tally) Top() int { return len(t.S) - 2 }

// up moves a bin of load k to k+1 at the current event. Acc and since are
// never shorter than S; an entry above the top holds S = 0, so its since
// is never read before the level reopens (it adds 0 then).
func (t *Tally) up(k uint64) {
	j := k + 1
	if j == uint64(len(t.S)-1) { // j was the zero above the top: a new top level
		t.grow()
	}
	t.Acc[j] += float64(t.S[j]) * float64(t.Event-t.since[j])
	t.since[j] = t.Event
	t.S[j]++
	t.Total++
	t.Arrivals++
}

// down moves a bin of load k ≥ 1 to k−1 at the current event.
func (t *Tally) down(k uint64) {
	t.Acc[k] += float64(t.S[k]) * float64(t.Event-t.since[k])
	t.since[k] = t.Event
	t.S[k]--
	t.Total--
	t.Departures++
	if t.S[k] == 0 { // S is non-increasing: k was the top, and is now the zero above it
		t.S = t.S[:k+1]
	}
}

// Flush brings every Acc[k] up to date with the events run so far.
func (t *Tally) Flush() {
	for k := 1; k < len(t.S); k++ {
		t.Acc[k] += float64(t.S[k]) * float64(t.Event-t.since[k])
		t.since[k] = t.Event
	}
}

// TakeAcc returns the sums since the last TakeAcc (after a Flush) and
// zeroes them: entry k−1 is Σ S_k, k ≥ 1, over the events in between.
func (t *Tally) TakeAcc() []float64 {
	t.Flush()
	out := make([]float64, len(t.Acc)-1)
	copy(out, t.Acc[1:])
	for k := range t.Acc {
		t.Acc[k] = 0
	}
	return out
}

// SupermarketDirect runs count events of the supermarket model on the
// loads (see the file comment for its stream), keeping t up to date.
// 1 ≤ len(loads) ≤ MaxBins; the loads must hold every bin's load when t
// counts them (both empty, or t started from the loads: Tally.StartLevels).
func SupermarketDirect[L Load](loads []L, r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	switch {
	case sm.heavy > 0:
		supermarketQuantileDirect(loads, r, count, sm, t)
		return
	case sm.thin != nil:
		supermarketThinDirect(loads, r, count, sm, t)
		return
	case sm.idle:
		supermarketIdleDirect(loads, r, count, sm, t)
		return
	}
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			var i uint32
			s, i = boundedFast(s, inc, n)
			if l := loads[i]; l > 0 {
				loads[i] = l - 1
				t.down(uint64(l))
			}
			t.Event++
			continue
		}
		two := !sm.one
		if sm.mixed {
			s, two = sm.beta.flip(s, inc)
		}
		var best uint32
		s, best = boundedFast(s, inc, n)
		bl := loads[best]
		if two {
			for k := 1; k < sm.d; k++ {
				var j uint32
				s, j = boundedFast(s, inc, n)
				// The first of the least loaded: the samples are i.i.d., so
				// this is a uniformly random one of them in law (kernels/dchoice.go).
				if lj := loads[j]; lj < bl {
					best, bl = j, lj
				}
			}
		}
		loads[best] = bl + 1
		t.up(uint64(bl))
		t.Event++
	}
	r.state = s
}

// SupermarketBoard is SupermarketDirect deciding on a bulletin board: an
// arrival samples as Placement says and takes the sample whose load on the
// board is least (the first such, as the i.i.d. samples make it a uniform
// one in law), then joins that bin's real queue. The caller refreshes the
// board (Mitzenmacher, "How useful is old information?", IEEE TPDS 11(1),
// 2000: the periodic update model). The stream is SupermarketDirect's, so a
// board refreshed after every event is that run, draw for draw.
func SupermarketBoard[L Load](loads, board []L, r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	s, inc := r.state, r.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		if !arrival {
			var i uint32
			s, i = boundedFast(s, inc, n)
			if l := loads[i]; l > 0 {
				loads[i] = l - 1
				t.down(uint64(l))
			}
			t.Event++
			continue
		}
		two := !sm.one
		if sm.mixed {
			s, two = sm.beta.flip(s, inc)
		}
		var best uint32
		s, best = boundedFast(s, inc, n)
		bb := board[best]
		if two {
			for k := 1; k < sm.d; k++ {
				var j uint32
				s, j = boundedFast(s, inc, n)
				if bj := board[j]; bj < bb {
					best, bb = j, bj
				}
			}
		}
		l := loads[best]
		loads[best] = l + 1
		t.up(uint64(l))
		t.Event++
	}
	r.state = s
}

// SupermarketLevels runs count events of the supermarket model on the
// tally alone: the histogram engine's state is S. A sampled bin is a
// uniform rank x in [0, n), the bins ordered by load from the heaviest, so
// the bin of rank x has load ℓ(x) = #{k ≥ 1 : S_k > x}; the least loaded of
// D samples is the one of largest rank. This is exact for the symmetric
// placements: the next state depends on the loads' multiset alone.
//
// The loop keeps the tally's slices and counters in locals (the tally is
// written back at the end) and leaves the rare new top level to grow.
func SupermarketLevels(r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	if sm.heavy > 0 || sm.thin != nil {
		supermarketPlacerLevels(r, count, sm, t)
		return
	}
	if sm.idle {
		supermarketIdleLevels(r, count, sm, t)
		return
	}
	if t.S[0] > MaxBins {
		supermarketLevelsWide(r, count, sm, t)
		return
	}
	s, inc := r.state, r.inc()
	n := uint32(t.S[0])
	thresh := -n % n // boundedThresh's: one division a call, not one in n/2^32 of the draws
	S, acc, since := t.S, t.Acc, t.since
	ev, arrivals, departures := t.Event, t.Arrivals, t.Departures
	arriveHi, betaHi := sm.arrive.hi, sm.beta.hi
	d, one, mixed := sm.d, sm.one, sm.mixed
	for ; count > 0; count-- {
		var c uint32
		s, c = step(s, inc)
		arrival := c < arriveHi
		if c == arriveHi {
			s, arrival = sm.arrive.flipTail(s, inc)
		}
		var x uint32
		if !arrival {
			s, x = boundedThresh(s, inc, n, thresh)
			if k := levelOf(S, uint64(x)); k > 0 {
				acc[k] += float64(S[k]) * float64(ev-since[k])
				since[k] = ev
				S[k]--
				departures++
				if S[k] == 0 { // k was the top: it is now the zero above it
					S = S[:k+1]
				}
			}
			ev++
			continue
		}
		two := !one
		if mixed {
			s, c = step(s, inc)
			two = c < betaHi
			if c == betaHi {
				s, two = sm.beta.flipTail(s, inc)
			}
		}
		s, x = boundedThresh(s, inc, n, thresh)
		if two {
			for k := 1; k < d; k++ {
				var y uint32
				s, y = boundedThresh(s, inc, n, thresh)
				x = max(x, y)
			}
		}
		k := levelOf(S, uint64(x)) + 1
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

// boundedThresh is boundedFast with its rejection threshold −n mod n
// given, for a loop whose n is fixed: boundedFast accepts a draw whose low
// word is ≥ n or ≥ thresh, and thresh < n, so both accept exactly when it
// is ≥ thresh — the same draws, the same stream, with the division (taken
// in n/2^32 of the draws, a fifth of them at n = 10^9) left out.
func boundedThresh(s, inc uint64, n, thresh uint32) (uint64, uint32) {
	for {
		m := uint64(pcgOutput(s)) * uint64(n)
		s = s*pcgMul + inc
		if uint32(m) >= thresh {
			return s, uint32(m >> 32)
		}
	}
}

// grow opens a new top level above the current one (S gains the zero above it).
func (t *Tally) grow() {
	t.S = append(t.S, 0)
	if len(t.Acc) < len(t.S) {
		t.Acc = append(t.Acc, 0)
		t.since = append(t.since, 0)
	}
	t.MaxEver = max(t.MaxEver, uint64(len(t.S)-2))
}

// supermarketLevelsWide is SupermarketLevels beyond 2^32 bins: ranks are
// PCG32.Bounded64 draws, and the tally's methods keep it.
func supermarketLevelsWide(r *PCG32, count uint64, sm *Supermarket, t *Tally) {
	n := t.S[0]
	for ; count > 0; count-- {
		if !sm.arrive.Flip(r) {
			if k := levelOf(t.S, r.Bounded64(n)); k > 0 {
				t.down(k)
			}
			t.Event++
			continue
		}
		two := !sm.one
		if sm.mixed {
			two = sm.beta.Flip(r)
		}
		x := r.Bounded64(n)
		if two {
			for k := 1; k < sm.d; k++ {
				x = max(x, r.Bounded64(n))
			}
		}
		t.up(levelOf(t.S, x))
		t.Event++
	}
}

// levelOf is the load of the bin of rank x: the largest k with S_k > x
// (S is non-increasing, S[0] = n > x, and its last entry is 0). A short
// scan from the bottom when there are few levels, else bisection.
func levelOf(S []uint64, x uint64) uint64 {
	if len(S) <= 24 {
		k := 1
		for S[k] > x {
			k++
		}
		return uint64(k - 1)
	}
	lo, hi := 0, len(S)-1 // S[lo] > x ≥ S[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if S[mid] > x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return uint64(lo)
}

// Deletions of the heavily loaded model (--delete-prob p): one ball leaves,
// chosen uniformly among the balls (ball: its bin is chosen with probability
// proportional to its load) or from a uniformly random non-empty bin (bin).

// deleteTries bounds the rejection draws of a deletion before it falls
// back to an exact O(n) scan: 64 + 8·n·M/total for n bins, loads at most M
// and total balls, eight times the expected draws of the rejection (whose
// acceptance is at least total/(n·M) for either deletion: a non-empty bin
// holds at most M balls), so the scan is rare and a deletion costs
// O(1 + n·M/total) expected — O(1) in the heavily loaded case. The bound
// is a function of the state, not of the draws, so the mixture is exact:
// the draws accepted within it and the scan both pick from the target law.
func deleteTries(n int, maxLoad, total uint64) uint64 {
	return 64 + uint64(min(8*float64(n)*float64(maxLoad)/float64(total), 1<<40))
}

// DeleteBall removes one ball chosen uniformly among the total ≥ 1 balls of
// the loads. maxLoad must bound every load (the largest load the run has
// seen will do). Stream: pairs of a PCG32.Bounded(n) bin and a
// PCG32.Bounded(maxLoad) acceptance draw (accepted when below the bin's
// load), up to deleteTries pairs; then one Bounded64(total) ball for a scan
// in bin order.
// It returns the bin.
func DeleteBall[L Load](loads []L, r *PCG32, maxLoad L, total uint64) int {
	return deleteBall(loads, r, maxLoad, total, deleteTries(len(loads), uint64(maxLoad), total))
}

func deleteBall[L Load](loads []L, r *PCG32, maxLoad L, total, tries uint64) int {
	n := uint32(len(loads))
	if uint64(maxLoad) <= MaxBins {
		for range tries {
			i := r.Bounded(n)
			if l := loads[i]; r.Bounded(uint32(maxLoad)) < uint32(l) {
				loads[i] = l - 1
				return int(i)
			}
		}
	}
	x := r.Bounded64(total)
	for i, l := range loads {
		if x < uint64(l) {
			loads[i] = l - 1
			return i
		}
		x -= uint64(l)
	}
	panic("kernels: DeleteBall: total exceeds the loads' sum")
}

// DeleteBin removes one ball from a uniformly random non-empty bin (total ≥
// 1 balls, none above maxLoad). Stream: PCG32.Bounded(n) until a non-empty
// bin, up to deleteTries; then one PCG32.Bounded(non-empty) for a scan in
// bin order. It returns the bin.
func DeleteBin[L Load](loads []L, r *PCG32, maxLoad L, total uint64) int {
	return deleteBin(loads, r, deleteTries(len(loads), uint64(maxLoad), total))
}

func deleteBin[L Load](loads []L, r *PCG32, tries uint64) int {
	n := uint32(len(loads))
	for range tries {
		i := r.Bounded(n)
		if l := loads[i]; l > 0 {
			loads[i] = l - 1
			return int(i)
		}
	}
	busy := uint32(0)
	for _, l := range loads {
		if l > 0 {
			busy++
		}
	}
	x := r.Bounded(busy)
	for i, l := range loads {
		if l > 0 {
			if x == 0 {
				loads[i] = l - 1
				return i
			}
			x--
		}
	}
	panic("kernels: DeleteBin: no non-empty bin")
}

// MoveDown takes one ball off a bin of level index i (load Min()+i ≥ 1),
// which moves to load Min()+i−1: the prefix count of level i−1 grows by
// one, or, for i = 0, a new lowest level opens.
func (lv *Levels) MoveDown(i int) {
	if i == 0 {
		if lv.lo == 0 {
			panic("kernels: MoveDown: a bin of load 0")
		}
		if lv.head == 0 { // room below for new lowest levels
			const room = 64
			nc := make([]uint64, room+len(lv.cum), room+cap(lv.cum))
			copy(nc[room:], lv.cum)
			lv.cum, lv.head = nc, room
		}
		lv.head--
		lv.lo--
		lv.cum[lv.head] = 1
		for b := range lv.guide { // level indices moved up by one
			lv.guide[b]++
		}
		lv.guide[0] = 0 // rank 0 is the new level's one bin
	} else {
		c := lv.cum[lv.head:]
		v := c[i-1]
		c[i-1]++
		// Rank v now lies in level i−1; only the block starting at v can move.
		if v&(1<<lv.shift-1) == 0 && v < lv.n {
			lv.guide[v>>lv.shift] = int32(i - 1)
		}
	}
	if c := lv.cum[lv.head:]; len(c) > 1 && c[len(c)-2] == lv.n { // the top level emptied
		lv.cum = lv.cum[:len(lv.cum)-1]
	}
}

// LevelDeleteBall removes one ball chosen uniformly among the total ≥ 1
// balls of lv: a level with probability ∝ load·count, then one of its bins.
// Stream: one Bounded64(total), then a scan of the levels.
func LevelDeleteBall(lv *Levels, r *PCG32, total uint64) {
	x := r.Bounded64(total)
	for i := lv.Len() - 1; i >= 0; i-- {
		w := (lv.lo + uint64(i)) * lv.Count(i)
		if x < w {
			lv.MoveDown(i)
			return
		}
		x -= w
	}
	panic("kernels: LevelDeleteBall: total exceeds the levels' sum")
}

// LevelDeleteBin removes one ball from a uniformly random non-empty bin of
// lv (there must be one): a uniform rank among the non-empty bins, which
// are the ranks at and above the count of empty ones. Stream: one rank
// draw (Bounded, or Bounded64 beyond 2^32 bins).
func LevelDeleteBin(lv *Levels, r *PCG32) {
	empty := uint64(0)
	if lv.lo == 0 {
		empty = lv.Count(0)
	}
	var x uint64
	r.state, x = rank(r.state, r.inc(), lv.n-empty)
	lv.MoveDown(lv.Level(empty + x))
}
