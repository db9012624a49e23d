package kernels

// Packing with --tau T --delay fixed on runs. Every ball
// retires the ball τ before it, and a step of packing places its balls on
// one bin, one after another: so the last τ balls are a sequence of runs
// of one bin, a step one run, and a step's balls retire whole runs with
// one add each, the oldest partly. The past loads at every step's read
// are the ball-by-ball record's (delayedTwinning's), and the work is a
// step's, not a ball's: packing's steps are long (29% longer than 4 balls
// at n = τ = 10^4). packingRunsSpan also retires ahead of the steps, so
// that how many runs a step retires is no branch of the step's (it was
// a coin flip for the predictor, as the step's size was in the ring's
// loop, packingSpan): 1.4–2 times that loop at n = τ = 10^4
// (bench/README.md).

// packRuns holds the last min(t, τ) balls as runs, oldest first: run i
// (mod the capacity) is lens[i] balls on bins[i]; head is the oldest run
// (lens[head] counts its balls not yet retired), tail the next free
// entry. A run holds at least one ball, and a span pushes a step's run
// before the window moves past its balls, so min(τ, balls) + 1 entries
// hold them (DelayWindow).
type packRuns struct {
	bins, lens []uint32
	head, tail uint32
	// packingRunsSpan's runs retired ahead of time: batch[1:] the last
	// batch's, flags[b] the entry of bin b's run in it, 0 if none
	// (batch[0] is empty).
	flags []uint8
	batch [256]packStamp
}

// packStamp is a run's balls [S, E) by ball number, on bin.
type packStamp struct {
	S, E uint64
	bin  uint32
}

// PackingRunsMemory is the bytes packing's runs add per bin and per slot
// of the fixed delay's ring (DelayMemory's; one slot more).
func PackingRunsMemory() (perBin, perTau int) { return 1, 4 }

// newPackRuns is the runs of dl's ring, a run a ball (none at t = 0); the
// ring itself is dropped.
func newPackRuns[L Load](dl *Delay[L]) *packRuns {
	w := len(dl.bins) + 1
	pr := &packRuns{bins: make([]uint32, w), lens: make([]uint32, w), flags: make([]uint8, len(dl.past))}
	tau := dl.tau
	for u := dl.t - min(dl.t, tau); u < dl.t; u++ {
		pr.push(dl.bins[u%tau], 1)
	}
	dl.bins = nil // nothing reads the ring of a packing run from here
	return pr
}

// push appends a run of c balls on bin b.
func (pr *packRuns) push(b uint32, c uint64) {
	pr.bins[pr.tail], pr.lens[pr.tail] = b, uint32(c)
	if pr.tail++; int(pr.tail) == len(pr.bins) {
		pr.tail = 0
	}
}

// runsRetire retires the c oldest balls into past; the runs hold at least
// c.
func runsRetire[L Load](pr *packRuns, past []L, c uint64) {
	for c > 0 {
		h := pr.head
		l := uint64(pr.lens[h])
		if c < l {
			pr.lens[h] = uint32(l - c)
			past[pr.bins[h]] += L(c)
			return
		}
		past[pr.bins[h]] += L(l)
		c -= l
		if pr.head++; int(pr.head) == len(pr.bins) {
			pr.head = 0
		}
	}
}

// runsPlace records c balls on bin b after t balls placed: the balls that
// leave the window of the last τ enter past, then the run.
func runsPlace[L Load](pr *packRuns, past []L, b uint32, c, t, tau uint64) {
	retire := max(t+c, tau) - max(t, tau)
	old := min(retire, min(t, tau)) // the runs' balls among them
	runsRetire(pr, past, old)
	if own := retire - old; own > 0 { // c > τ: the step's first balls leave too
		past[b] += L(own)
		c -= own
	}
	pr.push(b, c)
}

// delayedPacking is DelayedTwinning for Packing (pk 1; pk 0 runs Twinning,
// as the tests do): whole steps by packingRunsSpan once τ balls are
// placed, the first τ, a step cut by count's end and a step whose draw
// takes Lemire's slow path by the general step below, which draws and
// reads as delayedTwinning does.
func delayedPacking[L Load](loads []L, r *PCG32, count uint64, st *MultiStep, pk uint64, dl *Delay[L], maxLoad L) L {
	if dl.runs == nil {
		dl.runs = newPackRuns(dl)
	}
	pr := dl.runs
	past := dl.past[:len(loads)]
	n := uint32(len(loads))
	n64 := uint64(n)
	tau, t := dl.tau, dl.t
	s, inc := r.state, r.inc()
	owed, bin := st.Owed, uint32(st.Bin)
	for count > 0 {
		if owed == 0 && t >= tau {
			var k, smp uint64
			k, s, owed, bin, smp, maxLoad = packingRunsSpan(loads, past, n, pr, s, inc, t, count, tau, pk, bin, maxLoad)
			st.Samples += smp
			t += k
			count -= k
			if count == 0 {
				break
			}
		}
		if owed == 0 { // the general step
			s, bin = boundedFast(s, inc, n)
			st.Samples++
			x, q := uint64(past[bin]), ceilDiv(t, n64)
			lt := uint64(b2i(x < q))
			owed = 1 + lt*(1+pk*(q-x-1))
		}
		c := min(owed, count)
		v := loads[bin] + L(c)
		loads[bin] = v
		maxLoad = max(maxLoad, v)
		runsPlace(pr, past, bin, c, t, tau)
		owed -= c
		count -= c
		t += c
	}
	dl.t = t
	r.state = s
	st.Owed, st.Bin = owed, uint64(bin)
	return maxLoad
}

// packingRunsSpan places whole steps of at most τ − 1 balls from t ≥ τ
// balls placed, at most count balls, from state s: each pushes one run.
// It stops unplaced at a draw on Lemire's slow path (state unmoved) and
// at a step longer than what it may place (drawn: returned as owed on
// bin). It returns the balls placed, the state, the step owed (on bin,
// unchanged if none), the samples taken and the new maximum.
//
// Retirement runs ahead of the steps, with no branch a step on how many
// runs a step's balls retire (a coin flip for the predictor): when the
// balls retired (a) fall behind the window's start T = t − τ, the runs
// before T are retired, then a batch of whole runs up to packAhead balls
// past it, each bin at most once (the batch ends before a bin's second
// run) and each run noted in pr.batch. So bin b's load at T is past[b]
// less the balls at or past T of its run in the batch, if any: one read
// of flags[b] and of the entry it names. At the end the balls past T are
// given back, and the oldest run is the one T falls in, partly retired,
// as the general step expects.
func packingRunsSpan[L Load](loads, past []L, n uint32, pr *packRuns, s, inc, t, count, tau, pk uint64, bin uint32, maxLoad L) (uint64, uint64, uint64, uint32, uint64, L) {
	past = past[:n]
	loads = loads[:n]
	flags := pr.flags[:n]
	batch := &pr.batch
	bins, lens := pr.bins, pr.lens[:len(pr.bins)]
	w := uint32(len(bins))
	h, tail := pr.head, pr.tail
	n64 := uint64(n)
	q := ceilDiv(t, n64)
	rem := int64(q*n64 - t) // balls placed before q grows: t > q·n ⇔ rem < 0
	samples := uint64(0)
	placed := uint64(0)
	owed := uint64(0)
	a := t - tau   // the balls retired: those of the runs before h
	nb := uint8(1) // batch[1:nb]: the last batch
	for placed < count {
		x := uint64(pcgOutput(s)) * n64
		if uint32(x) < n {
			break
		}
		s = s*pcgMul + inc
		samples++
		b := x >> 32
		T := t - tau
		if a < T {
			for l := uint64(lens[h]); a+l <= T; l = uint64(lens[h]) { // runs before T
				past[bins[h]] += L(l)
				a += l
				if h++; h == w {
					h = 0
				}
			}
			for _, e := range batch[1:nb] {
				flags[e.bin] = 0
			}
			nb = 1
			for goal := min(T+packAhead, t); a < goal; { // the first holds T
				bb := bins[h]
				if flags[bb] != 0 { // bb's second run this batch
					break
				}
				l := uint64(lens[h])
				past[bb] += L(l)
				batch[nb] = packStamp{a, a + l, bb}
				flags[bb] = nb
				nb++
				a += l
				if h++; h == w {
					h = 0
				}
			}
		}
		e := &batch[flags[b]]
		d := int64(e.E) - int64(max(e.S, T))
		v := uint64(past[b]) - uint64(d&^(d>>63)) // b's balls retired at or past T taken off
		lt := uint64(b2i(v < q))
		add := 1 + lt*(1+pk*(q-v-1)) // lt = 0 cancels the garbage of q − v − 1
		if add > min(count-placed, tau-1) {
			owed, bin = add, uint32(b)
			break
		}
		u := loads[b] + L(add)
		loads[b] = u
		maxLoad = max(maxLoad, u)
		bins[tail], lens[tail] = uint32(b), uint32(add)
		if tail++; tail == w {
			tail = 0
		}
		placed += add
		t += add
		for rem -= int64(add); rem < 0; rem += int64(n64) {
			q++
		}
	}
	// Retire up to T, or give back the balls at or past it; the run T
	// falls in is the oldest.
	T := t - tau
	if a < T {
		pr.head = h
		runsRetire(pr, past, T-a)
		h = pr.head
	}
	for e := a; e > T; {
		if h == 0 {
			h = w
		}
		h--
		sb := e - uint64(lens[h])
		back := e - max(sb, T)
		past[bins[h]] -= L(back)
		lens[h] = uint32(back)
		e = sb
	}
	for _, e := range batch[1:nb] {
		flags[e.bin] = 0
	}
	pr.head, pr.tail = h, tail
	return placed, s, owed, bin, samples, maxLoad
}

// packAhead is how far past the window's start packingRunsSpan retires;
// a batch holds at most packAhead runs (the first holds T, and each
// other starts before T + packAhead), below batch's 255.
const packAhead = 128
