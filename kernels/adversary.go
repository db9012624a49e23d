package kernels

// Insertions and deletions named by an oblivious sequence (balloc
// adversary; core/adversary holds the model, its sources and the choices
// it decides). An operation is a uint32: AdvInsert places a new ball, the
// next in insertion order; k ≥ 1 deletes the k-th inserted ball from the
// bin the strategy put it in. The caller has checked the sequence (a
// deletion names a ball inserted earlier and still present), so the loops
// trust it.
//
// State beside the loads: Where, each inserted ball's bin (so a deletion
// finds it in O(1)), and, above AdvScanBins bins, Level, the number of bins
// at each load, so the maximum load is kept exactly through deletions in
// O(1) an operation (a deletion from the last bin at the maximum lowers it
// by one). Up to AdvScanBins bins a deletion from a bin at the maximum
// rescans the loads instead: a few compares, where the level counts' two
// read-modify-writes an operation on neighbouring cells chain through
// memory (measured in bench/README.md). The measures are kept in
// integers: n·max − present, whose largest value over the operations is
// n·(the largest gap seen), the largest maximum load and the peak of the
// balls present.

// AdvInsert is the operation "insert a new ball".
const AdvInsert uint32 = 0

// AdvScanBins is the most bins for which a deletion rescans the loads for
// the maximum rather than keeping Level.
const AdvScanBins = 16

// Adversary is one trial's state. Loads has n entries; Level (kept above
// AdvScanBins bins, nil below) has room for every load a bin can reach
// (the sequence's insertions + 1); Where one entry per insertion.
// NewAdversary allocates them; Reset empties them.
type Adversary struct {
	Loads    []uint32
	Level    []uint32 // Level[l]: bins with load l
	Where    []uint32 // Where[k-1]: the bin of the k-th inserted ball
	Inserted uint32   // balls inserted so far (the next is Inserted+1)
	Present  uint32   // balls present
	Max      uint32   // the maximum load
	Top      uint32   // the largest maximum load so far
	Peak     uint32   // the most balls present at once so far
	MaxGapN  int64    // the largest n·Max − Present after any operation so far
}

// NewAdversary allocates the state for n bins and at most inserts
// insertions, empty.
func NewAdversary(n int, inserts uint32) *Adversary {
	a := &Adversary{
		Loads: make([]uint32, n),
		Where: make([]uint32, inserts),
	}
	if n > AdvScanBins {
		a.Level = make([]uint32, uint64(inserts)+2)
	}
	a.Reset()
	return a
}

// Reset empties the bins: every bin at load 0, nothing inserted.
func (a *Adversary) Reset() {
	clear(a.Loads)
	if a.Level != nil {
		clear(a.Level)
		a.Level[0] = uint32(len(a.Loads))
	}
	a.Inserted, a.Present, a.Max, a.Top, a.Peak, a.MaxGapN = 0, 0, 0, 0, 0, 0
}

// The rules a loop runs.
const (
	advGreedy = iota
	advOneChoice
	advModulated
)

// Greedy runs ops with Greedy (two-choice): a new ball draws two bins
// uniformly with replacement and goes to the less loaded, ties to the
// first (equal in law to random ties: the two draws are exchangeable; see
// dchoice.go).
//
// Stream: two PCG32.Bounded(n) per insertion, none per deletion.
func (a *Adversary) Greedy(ops []uint32, r *PCG32) { a.run(ops, r, nil, 0, advGreedy) }

// OneChoice runs ops with the baseline that ignores loads: a new ball
// draws its two bins as Greedy does and goes to the first, a uniform bin.
// Drawing the second keeps the pairs of one stream the same as Greedy's.
//
// Stream: two PCG32.Bounded(n) per insertion, none per deletion.
func (a *Adversary) OneChoice(ops []uint32, r *PCG32) { a.run(ops, r, nil, 0, advOneChoice) }

// Modulated runs ops with the modulated rule of width w ≥ 1: a new ball
// draws bins i and j uniformly with replacement from r and a coin
// c = Bounded(2w) from coins, and goes to i when c < w + (load j − load i),
// else to j; that is, to i with probability
// clamp(1/2 + (load j − load i)/(2w), 0, 1). core/adversary says where
// the rule comes from. The pairs come from r exactly as Greedy's do, so
// the two rules run on one stream see the same pairs, ball for ball.
//
// Stream: two PCG32.Bounded(n) from r and one Bounded(2w) from coins per
// insertion, none per deletion.
func (a *Adversary) Modulated(ops []uint32, r, coins *PCG32, w uint32) {
	a.run(ops, r, coins, w, advModulated)
}

// run is the one loop: the rule and whether Level is kept are fixed for
// the chunk, so their branches are predicted perfectly.
func (a *Adversary) run(ops []uint32, r, coins *PCG32, w uint32, rule int) {
	loads, level, where := a.Loads, a.Level, a.Where
	s, inc := r.state, r.inc()
	var cs, cinc uint64
	if coins != nil {
		cs, cinc = coins.state, coins.inc()
	}
	n := uint32(len(loads))
	nn := int64(n)
	w2 := 2 * w
	keepLevels := level != nil
	ins, present, mx, top, peak, best := a.Inserted, a.Present, a.Max, a.Top, a.Peak, a.MaxGapN
	for _, op := range ops {
		if op == AdvInsert {
			var i, j uint32
			s, i = boundedFast(s, inc, n)
			s, j = boundedFast(s, inc, n)
			li, lj := loads[i], loads[j]
			switch rule {
			case advGreedy:
				// A mask, not a branch: which of two uniform bins is
				// lighter is a coin flip for the predictor at a few bins.
				pick := uint32((int64(lj) - int64(li)) >> 63) // all ones when lj < li, for any two uint32 loads
				i ^= (i ^ j) & pick
				li ^= (li ^ lj) & pick
			case advModulated:
				var c uint32
				cs, c = boundedFast(cs, cinc, w2)
				pick := uint32((int64(w) + int64(lj) - int64(li) - 1 - int64(c)) >> 63) // all ones when c ≥ w + lj − li
				i ^= (i ^ j) & pick
				li ^= (li ^ lj) & pick
			}
			if keepLevels {
				level[li]--
				level[li+1]++
			}
			li++
			loads[i] = li
			mx = max(mx, li)
			top = max(top, li)
			where[ins] = i
			ins++
			present++
			peak = max(peak, present)
		} else {
			b := where[op-1]
			l := loads[b]
			loads[b] = l - 1
			if keepLevels {
				level[l]--
				level[l-1]++
				if l == mx && level[l] == 0 {
					mx--
				}
			} else {
				// Always: a branch on "was it at the maximum" is a coin
				// flip at a few bins, dearer than the rescan.
				mx = 0
				for _, x := range loads {
					mx = max(mx, x)
				}
			}
			present--
		}
		best = max(best, nn*int64(mx)-int64(present))
	}
	r.state = s
	if coins != nil {
		coins.state = cs
	}
	a.Inserted, a.Present, a.Max, a.Top, a.Peak, a.MaxGapN = ins, present, mx, top, peak, best
}
