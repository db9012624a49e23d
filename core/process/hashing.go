package process

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Consistent hashing with bounded loads (Mirrokni, Thorup and
// Zadimoghaddam, "Consistent Hashing with Bounded Loads", SODA 2018; the
// rule HAProxy's hash-balance-factor and Envoy's hash_balance_factor
// run): bins and balls are hashed to a ring, and a ball goes to the first
// bin clockwise from its point whose load is below the capacity ⌈c·m/n⌉,
// m the balls counting the new one, c = 1 + ε > 1 ("forwarding the ball
// on the circle to the first non-full bin", the paper's linear probing).
// Here the ball placed after t others sees the capacity ⌈c·(t+1)/n⌉, so
// after every ball the maximum load is at most ⌈c·(balls)/n⌉: a bin took
// its last ball while below the capacity of that ball, and capacities do
// not fall as balls come. Some bin is below it for every ball (n bins at
// ⌈c(t+1)/n⌉ or more would hold ≥ c(t+1) > t balls), so every walk ends.
//
// The choices the paper leaves open, decided:
//   - The ring is 2^64 positions. Each bin has --vnodes v points (virtual
//     nodes, as both load balancers place several per server; the paper's
//     analysis has one, v = 1, the default). They are uniform random
//     positions drawn per trial from the trial's structure stream,
//     kernels.TrialStream(seed, trial, LaneStructure): node r of bin b in
//     the order b = 0 … n−1, r = 0 … v−1, one Uint64 each, so the ring is
//     a pure function of (seed, trial) and a fresh ring every trial — the
//     results average over rings as the paper's expectations do.
//   - A ball's point is a uniform position (Uint64 from the choices
//     stream, the high half drawn first). It goes to the first node at or
//     after its point, wrapping past 2^64 − 1 to the lowest; equal node
//     positions (probability < (nv)²/2^65) are ordered by bin.
//   - A probe is a node visited: each reads one bin's load. With v > 1 a
//     walk may meet one bin twice and reads its load each time (a load
//     balancer walking its ring does the same). The trial reports probes
//     per ball, mean and max (Result.Probes).
//   - c is read as the decimal the user wrote (its shortest decimal form,
//     1.1 as 11/10), so ⌈c·T/n⌉ is exact in integers: in floating point
//     1.1·100/10 is 11.000000000000002, whose ceiling is 12.
//   - With --initial's W0 balls the ball after t others makes W0 + t + 1.
//
// Balls that leave: the supermarket model (--arrival-rate λ), by its own
// event loop (kernels.HashRingSupermarket; the process is Ringed, not a
// Placer). A job arrives at a uniform point and walks to the first bin
// with fewer than ⌈c·P/n⌉ jobs, P the jobs present counting it; a bin
// serves one job at rate 1, and a departure moves no other job. This is
// the load balancers' reading: HAProxy's and Envoy's hash balance factor
// bounds the servers a new connection may go to by the connections now
// open, and never moves an open one. So after departures a bin may hold
// more than the present capacity, until its own departures bring it back
// below, and the guarantee holds at each arrival for the bin chosen. The
// paper's dynamic setting reads it differently: it keeps every bin within
// the capacity of the balls present by moving balls on each insertion and
// deletion (a ball whose walk passed a bin that gets room may move back).
// That needs each ball's ring point and is not built. The deletions model
// (--delete-prob, --phases) is refused in one line. The trial reports the
// probes per arrival (warmup included).
//
// Direct engine only (positions on a ring are not exchangeable):
// kernels.HashRing, the first node found through a table of buckets of
// the ring (about one node scanned), the capacity moved ball to ball
// without a division (kernels.Capacity).

// Hashing is consistent hashing with bounded loads.
type Hashing struct {
	C      float64 // the balance factor c > 1
	VNodes uint64  // ring points per bin
	num    uint64  // c/n = num/den in lowest terms
	den    uint64
}

var hashingEntry = &Entry{
	Name: "bounded-hashing", Order: 150,
	Summary: "a uniform ring point, clockwise to the first bin with load < ⌈c(t+1)/n⌉ (consistent hashing with bounded loads); reports probes per ball",
	Source:  "Mirrokni, Thorup, Zadimoghaddam 2018 (SODA)",
	Reports: []*result.Kind{result.ProbesKind},
	New:     func() Process { return &Hashing{} },
}

func init() { Register(hashingEntry) }

func (*Hashing) Entry() *Entry { return hashingEntry }

// maxHashC bounds c: c ≥ n already lets every bin take every ball (plain
// consistent hashing), and the bound keeps c's numerator in 63 bits.
const maxHashC = 1 << 32

func (p *Hashing) Params() []*Param {
	return []*Param{
		Real("c", "bounded-hashing: the balance factor c; a bin takes the ball placed after t others while its load < ⌈c(t+1)/n⌉, 1 < c ≤ 2^32", &p.C,
			func(x float64) bool { return x > 1 && x <= maxHashC }, "a real 1 < c ≤ 2^32").Listed().Need("a balance factor c > 1"),
		Count("vnodes", "bounded-hashing: ring points (virtual nodes) per bin, v ≥ 1, bins × v < 2^32", &p.VNodes, 1, "want v ≥ 1 ring point per bin").Def("1").Listed(),
	}
}

func (p *Hashing) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if p.VNodes >= 1<<32 || su.Bins*p.VNodes >= 1<<32 {
		return fmt.Errorf("--vnodes %d: bins × vnodes = %d × %d, want < 2^32 ring points", p.VNodes, su.Bins, p.VNodes)
	}
	num, den, err := capacityRatio(p.C, su.Bins)
	if err != nil {
		return err
	}
	p.num, p.den = num, den
	return nil
}

// capacityRatio is c/n in lowest terms, c read as its shortest decimal.
func capacityRatio(c float64, n uint64) (num, den uint64, err error) {
	text := strconv.FormatFloat(c, 'f', -1, 64)
	whole, frac, _ := strings.Cut(text, ".")
	a, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok {
		return 0, 0, fmt.Errorf("--c %v: not a decimal number", c)
	}
	b := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	b.Mul(b, new(big.Int).SetUint64(n))
	g := new(big.Int).GCD(nil, nil, a, b)
	a.Quo(a, g)
	b.Quo(b, g)
	if a.BitLen() > 63 || b.BitLen() > 63 {
		return 0, 0, fmt.Errorf("--c %s: c/n in lowest terms needs more than 63 bits at --bins %d; give c with fewer decimal places", text, n)
	}
	return a.Uint64(), b.Uint64(), nil
}

// Footprint: the ring, 16 bytes a node and a bucket table.
func (p *Hashing) Footprint(f *units.Footprint, m Mem) {
	f.Add("--vnodes", "lower --vnodes or --bins", kernels.RingMemory(units.Mul(m.Bins, p.VNodes)))
}

type hashLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	ring *kernels.Ring
	cp   kernels.Capacity
	w0   uint64
	pr   kernels.Probes
}

func (l *hashLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	l.cp.At(l.w0 + t + 1)
	return c, kernels.HashRing(loads, l.ring, l.r, c, &l.cp, &l.pr, maxLoad)
}

func (l *hashLoop[L]) Probes() (uint64, uint64) { return l.pr.Total, l.pr.Max }

func hashingDirect[L kernels.Load](p *Hashing, tr *Trial) Stepper[L] {
	st := kernels.TrialStream(tr.Seed, tr.Index, kernels.LaneStructure)
	return &hashLoop[L]{
		r:    tr.Choices,
		ring: kernels.NewRing(&st, uint32(tr.Bins), uint32(p.VNodes)),
		cp:   kernels.Capacity{Num: p.num, Den: p.den},
		w0:   tr.Initial,
	}
}

// Ring is c/n in lowest terms and the ring points per bin (Ringed).
func (p *Hashing) Ring() (num, den, vnodes uint64) { return p.num, p.den, p.VNodes }

func (p *Hashing) Direct32(tr *Trial) Stepper[uint32] { return hashingDirect[uint32](p, tr) }
func (p *Hashing) Direct64(tr *Trial) Stepper[uint64] { return hashingDirect[uint64](p, tr) }
