package kernels

// Stale load information in the supermarket model, beside the periodic
// board of SupermarketBoard: the other two models of Mitzenmacher, "How
// useful is old information?", IEEE TPDS 11(1), 2000 (core/dynamic.go has
// the settings, core/engine/stale.go drives the loops).
//
//   - Continuous update with delay T (SupermarketDelay): an arrival at time
//     t sees every bin's load as it was at time t − T exactly (the load of
//     the state in force at t − T: changes at times ≤ t − T are seen, later
//     ones are not; before time 0 the loads are the empty start).
//   - Individual updates with mean T (SupermarketIndividual): every bin's
//     board entry is refreshed from its real load at the points of its own
//     Poisson process of rate 1/T, independent of everything else; an
//     arrival compares board entries.
//
// In both an arrival samples as Placement says, takes the sample whose seen
// load is least (the first such: the samples are i.i.d., so a uniform one
// in law) and joins that bin's real queue; departures are the real queues'.
// The event stream (r) is SupermarketBoard's draw for draw — the arrival
// coin, the β coin, the samples or the departure's bin — so a board that
// always equals the loads is the fresh run, event for event. What the
// models add draws from a second stream (LaneNoise in a trial).

// DelayRecord is the continuous update model's state beside the loads:
// the board of the loads at time Now − T, and the changes within the window
// (Now − T, Now] in time order, each to be applied to the board when it
// leaves the window. An event enters the record once and leaves it once, so
// keeping the board costs O(1) amortized per event, and reading a bin's old
// load is one array read.
//
// Time: the supermarket's uniformization has its events at the points of a
// Poisson process of rate n(1+λ), independent of the jumps; the engine's
// time averages need only the expected gap (kernels.Tally), but the delay
// needs each event's time stamp. Clock draws the gaps, i.i.d.
// Exp(n(1+λ)) (PCG32.Exp, the ziggurat), one per event, from its own
// stream, so the event stream and every other model's output are unchanged.
type DelayRecord[L Load] struct {
	Board []L     // each bin's load at time t − T, t the last arrival's time
	Clock PCG32   // the gaps between events (one Exp per event)
	Now   float64 // the time of the last event (0 before the first)
	delay float64 // T
	gap   float64 // the mean gap, 1/(n(1+λ))
	at    []float64
	what  []uint32 // bin<<1 | 1 for an arrival, bin<<1 for a departure
	head  int      // the oldest change in the window
	size  int      // changes in the window
}

// NewDelayRecord returns the record of n empty bins with delay T at
// events per unit time `rate`, its ring sized for about `hint` changes
// (it grows when the window holds more).
func NewDelayRecord[L Load](n int, T, rate float64, clock PCG32, hint uint64) *DelayRecord[L] {
	c := 64
	for uint64(c) < hint && c < 1<<30 {
		c <<= 1
	}
	return &DelayRecord[L]{Board: make([]L, n), Clock: clock, delay: T, gap: 1 / rate,
		at: make([]float64, c), what: make([]uint32, c)}
}

// grow doubles the ring, keeping the changes in order.
func (d *DelayRecord[L]) grow() {
	c := len(d.at)
	at, what := make([]float64, 2*c), make([]uint32, 2*c)
	for k := range d.size {
		at[k], what[k] = d.at[(d.head+k)&(c-1)], d.what[(d.head+k)&(c-1)]
	}
	d.at, d.what, d.head = at, what, 0
}

// SupermarketDelay runs count events of the supermarket model whose
// arrivals decide on the loads T time units old (the continuous update
// model): each event's time stamp is drawn from d.Clock; before an
// arrival decides, the changes at times ≤ now − T leave the window into
// the board (departures read no board, so their expiries wait for the next
// arrival); the event runs as in SupermarketBoard, and a change it makes
// enters the window. len(loads) = len(d.Board) ≤ MaxBins bins, < 2^31 (a change packs
// the bin in 31 bits).
func SupermarketDelay[L Load](loads []L, r *PCG32, count uint64, sm *Supermarket, t *Tally, d *DelayRecord[L]) {
	s, inc := r.state, r.inc()
	cs, cinc := d.Clock.state, d.Clock.inc()
	n := uint32(len(loads))
	board := d.Board
	arriveHi := sm.arrive.hi
	now, delay, gap := d.Now, d.delay, d.gap
	// The ring in locals, written back before it grows and at the end.
	at, what, head, size := d.at, d.what, d.head, d.size
	mask := len(at) - 1
	for ; count > 0; count-- {
		var x float64
		cs, x = expZig(cs, cinc)
		now += x * gap
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
				if size == len(at) {
					d.head, d.size = head, size
					d.grow()
					at, what, head, mask = d.at, d.what, 0, len(d.at)-1
				}
				k := (head + size) & mask
				at[k], what[k] = now, i<<1
				size++
			}
			t.Event++
			continue
		}
		// Only arrivals read the board: the changes that left the window
		// since the last arrival are applied now (the horizon only grows).
		for horizon := now - delay; size > 0 && at[head] <= horizon; size-- {
			w := what[head]
			board[w>>1] += L(w&1)*2 - 1 // +1 for an arrival, −1 for a departure (mod 2^bits)
			head = (head + 1) & mask
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
		if size == len(at) {
			d.head, d.size = head, size
			d.grow()
			at, what, head, mask = d.at, d.what, 0, len(d.at)-1
		}
		k := (head + size) & mask
		at[k], what[k] = now, best<<1|1
		size++
		t.Event++
	}
	r.state, d.Clock.state, d.Now = s, cs, now
	d.head, d.size = head, size
}

// Refresher draws the individual updates. Each bin's entry is refreshed
// at the points of its own Poisson process of rate 1/T; together these are
// one Poisson process of rate n/T whose points refresh a uniformly random
// bin. Merged with the supermarket's events (rate n(1+λ)), each point of
// the union is a refresh with probability
//
//	q = (n/T) / (n/T + n(1+λ)) = 1 / (1 + (1+λ)·T),
//
// independently of the others and of the jumps (superposition and thinning
// of Poisson processes). So before each event the loop flips the q coin
// until it fails, and each success refreshes a uniform bin: the number of
// refreshes in the gap before an event is Geometric, mean 1/((1+λ)T). This
// is the model exactly, with no time stamps: an entry read at an event was
// copied at the bin's last refresh before it. Stream (Rng): per event the
// q coins (Bernoulli.Flip), each success followed by its bin
// (PCG32.Bounded(n)).
type Refresher struct {
	coin Bernoulli
	Rng  PCG32
}

// NewRefresher returns the individual updates of mean period T at arrival
// rate λ, drawing from rng.
func NewRefresher(lambda, T float64, rng PCG32) (*Refresher, error) {
	c, err := NewBernoulli(1 / (1 + (1+lambda)*T))
	return &Refresher{coin: c, Rng: rng}, err
}

// SupermarketIndividual runs count events of the supermarket model whose
// arrivals decide on a board refreshed by individual updates: before each
// event the refreshes of its gap (f's stream), then the event as in
// SupermarketBoard. 1 ≤ len(loads) = len(board) ≤ MaxBins.
func SupermarketIndividual[L Load](loads, board []L, r *PCG32, count uint64, sm *Supermarket, t *Tally, f *Refresher) {
	s, inc := r.state, r.inc()
	fs, finc := f.Rng.state, f.Rng.inc()
	n := uint32(len(loads))
	arriveHi := sm.arrive.hi
	for ; count > 0; count-- {
		for {
			var ok bool
			fs, ok = f.coin.flip(fs, finc)
			if !ok {
				break
			}
			var i uint32
			fs, i = boundedFast(fs, finc, n)
			board[i] = loads[i]
		}
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
	r.state, f.Rng.state = s, fs
}
