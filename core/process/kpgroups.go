package process

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// KP-Groups: each ball draws two uniform groups of k consecutive bins and
// goes to the least loaded bin (the leftmost) of the lesser loaded group, by
// total load (--group-rule sum) or least bin load (min), a fair coin on ties
// between the groups — Kenthapadi and Panigrahy 2006, "Balanced allocation
// on graphs", §5. With --aligned false the groups are two random disjoint
// windows, their counter-example.
//
// Direct engine only (the groups are made of names): kernels.KPGroups on
// the n/k aligned groups, whose sums the trial keeps, or kernels.KPWindows.

// KPGroups is the kp-groups process.
type KPGroups struct {
	GroupSize uint64 // k bins per group
	Aligned   bool   // n/k aligned groups, else two disjoint random windows
	GroupRule string // sum or min
}

var kpGroupsEntry = &Entry{
	Name: "kp-groups", Order: 120,
	Summary: "two uniform groups of k consecutive bins; the least loaded bin (leftmost) of the lesser loaded group",
	Source:  "Kenthapadi, Panigrahy 2006 (Balanced allocation on graphs), §5",
	New:     func() Process { return &KPGroups{} },
}

func init() { Register(kpGroupsEntry) }

func (*KPGroups) Entry() *Entry { return kpGroupsEntry }

func (p *KPGroups) Params() []*Param {
	return []*Param{
		Custom("group-size", "kp-groups: k bins per group, k ≥ 1", func(v string) error {
			x, err := units.ParseCount(v)
			if err != nil {
				return fmt.Errorf("--group-size %v", err)
			}
			if x < 1 || x > kernels.MaxBins {
				return fmt.Errorf("--group-size %d: want 1 ≤ k ≤ bins", x)
			}
			p.GroupSize = x
			return nil
		}, func() any { return p.GroupSize }).Listed().Need("a group size k ≥ 1"),
		Bool("aligned", "kp-groups: true, n/k aligned groups; false, two random disjoint windows of k bins", &p.Aligned).Def("true").Listed(),
		Choice("group-rule", "kp-groups: the lesser loaded group is the one with the smaller sum or the smaller min", &p.GroupRule, "sum", "min").Def("sum").Listed(),
	}
}

func (p *KPGroups) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	k := p.GroupSize
	switch {
	case k > su.Bins:
		return fmt.Errorf("--group-size %d exceeds --bins %d", k, su.Bins)
	case p.Aligned && su.Bins%k != 0:
		return fmt.Errorf("--group-size %d: aligned groups split the bins into n/k groups, so k must divide --bins %d", k, su.Bins)
	case !p.Aligned && 2*k > su.Bins:
		return fmt.Errorf("--group-size %d: two disjoint windows of k bins need --bins ≥ 2k = %d (got %d)", k, 2*k, su.Bins)
	}
	return nil
}

// sums reports whether a trial keeps the groups' total loads.
func (p *KPGroups) sums() bool { return p.Aligned && p.GroupRule == "sum" }

// Memory: aligned groups compared by sum keep a total per group.
func (p *KPGroups) Footprint(f *units.Footprint, m Mem) {
	if p.sums() {
		f.Add(m.BinsCulprit, m.BinsHint, units.Mul(m.Bins/p.GroupSize, m.LoadBytes))
	}
}

// kpGroupsLoop is the aligned groups; sums is nil with --group-rule min.
type kpGroupsLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	k     uint32
	byMin bool
	sums  []L
	coins kernels.Coins
}

func (l *kpGroupsLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.KPGroups(loads, l.sums, l.r, c, l.k, l.byMin, &l.coins, maxLoad)
}

// Start sums the initial loads of each group (bins gk … gk+k−1).
func (l *kpGroupsLoop[L]) Start(loads []L) {
	for g := range l.sums {
		for _, v := range loads[uint32(g)*l.k : uint32(g+1)*l.k] {
			l.sums[g] += v
		}
	}
}

type kpWindowsLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	k     uint32
	byMin bool
	coins kernels.Coins
}

func (l *kpWindowsLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.KPWindows(loads, l.r, c, l.k, l.byMin, &l.coins, maxLoad)
}

func kpGroupsDirect[L kernels.Load](p *KPGroups, tr *Trial) Stepper[L] {
	k, byMin := uint32(p.GroupSize), p.GroupRule == "min"
	if !p.Aligned {
		return &kpWindowsLoop[L]{r: tr.Choices, k: k, byMin: byMin}
	}
	l := &kpGroupsLoop[L]{r: tr.Choices, k: k, byMin: byMin}
	if p.sums() {
		l.sums = make([]L, tr.Bins/p.GroupSize)
	}
	return l
}

func (p *KPGroups) Direct32(tr *Trial) Stepper[uint32] { return kpGroupsDirect[uint32](p, tr) }
func (p *KPGroups) Direct64(tr *Trial) Stepper[uint64] { return kpGroupsDirect[uint64](p, tr) }
