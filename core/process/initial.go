package process

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/balloc/balloc/kernels"

	"github.com/balloc/balloc/internal/files"
)

// --initial: the load vector a trial starts from, for every process
// (recovery studies; the initial configurations of repeated
// balls-into-bins, Los and Sauerwald, STACS 2023, and the authors' code
// Dim131/RBB). The forms:
//
//	zero        every bin empty: the start of every process until now (default)
//	uniform:L   every bin holds L balls
//	spike:L     bin 0 holds L balls, every other bin none
//	file:PATH   bin i holds the load on the i-th load line of PATH: one
//	            non-negative integer a line; blank lines and lines starting
//	            with # are skipped; n lines for n bins, and n is the file's
//	            when --bins is absent
//	uniform     (rbb only) the m = --balls balls spread as evenly as possible:
//	            every bin ⌊m/n⌋, the first m mod n bins one more (the authors'
//	            generate_uniform_vector); rbb's default
//	spike       (rbb only) all m balls in bin 0: the paper's adversarial start
//	fixed-point (the supermarket model only, --arrival-rate) every bin's load
//	            drawn i.i.d. from the process's fixed point π, P(load ≥ i) =
//	            π_i: one-choice's exact stationary law, the others'
//	            mean-field rest point (core/supermarket_initial.go)
//
// The static processes throw --balls balls on top of the initial ones, which
// do not count toward --balls: checkpoints and Result.Balls count thrown balls,
// Result.InitialBalls holds the initial total W0, and the average, the gap and
// the potentials are of the whole load, gap = max − (W0 + t)/n after t balls.
// A process that reads the average while it places (two-thinning's t/n + θ)
// reads the current one, (W0 + t)/n (Trial.Initial). What counts thrown balls
// stays so: b-batch's batches, a hypergraph's refresh period and tau-delay's
// replayed ages are of thrown balls. Quantile ranks the current loads, initial
// ones among them. Bin 0 of a spike is vertex 0 of a graph. Loads of constant
// weights w count balls of weight w; with random weights an initial load L is
// L units of weight. rbb conserves its m balls: its initial vector is those
// m balls (the total must equal --balls).

// Initial is a parsed --initial.
type Initial struct {
	Kind string // "zero" (or ""), "uniform", "spike", "file", InitialFixedPoint
	L    uint64 // uniform:L, spike:L
	Bare bool   // uniform or spike without L: rbb's m balls
	Path string // file:PATH
	File []uint64
	// AtLeast is the fixed-point start's law, P(load ≥ i) = AtLeast[i−1],
	// set by core once the process and λ are known (a random start: its
	// balls are drawn per trial, and Total is 0).
	AtLeast []float64

	n, m uint64 // set by Resolve: bins, and the balls a bare form spreads
}

// InitialFixedPoint is the Kind of --initial fixed-point.
const InitialFixedPoint = "fixed-point"

// InitialParam is --initial, bound to in: for every process.
func InitialParam(in *Initial) *Param {
	return Custom("initial", "the loads a trial starts from: zero, uniform:L (every bin L), spike:L (bin 0 holds L), file:PATH (one load a line); rbb also uniform and spike of its --balls (its default: uniform); the initial balls add to --balls; with --arrival-rate also fixed-point (i.i.d. loads with P(load ≥ i) = π_i, the fixed point: one-choice's exact stationary law, the others' mean-field rest point, stationary up to an O(1/n) bias and O(1/√n) fluctuations)",
		func(v string) error {
			x, err := ParseInitial(v)
			if err != nil {
				return err
			}
			*in = x
			return nil
		}, func() any { return in.String() }).Def("zero").Listed()
}

func init() { addFlag(&Entry{Name: "initial"}, InitialParam(new(Initial))) }

// ParseInitial reads the forms above; file:PATH reads the file.
func ParseInitial(v string) (Initial, error) {
	kind, arg, hasArg := strings.Cut(v, ":")
	bad := func(why string) (Initial, error) {
		return Initial{}, fmt.Errorf("--initial %q: %s", v, why)
	}
	switch kind {
	case "zero":
		if hasArg {
			return bad("zero takes no value")
		}
		return Initial{Kind: "zero"}, nil
	case "uniform", "spike":
		if !hasArg {
			return Initial{Kind: kind, Bare: true}, nil
		}
		l, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			return bad(fmt.Sprintf("want %s:L with L a non-negative integer", kind))
		}
		return Initial{Kind: kind, L: l}, nil
	case InitialFixedPoint:
		if hasArg {
			return bad("fixed-point takes no value")
		}
		return Initial{Kind: kind}, nil
	case "file":
		if arg == "" {
			return bad("want file:PATH")
		}
		loads, err := readInitialFile(arg)
		if err != nil {
			return Initial{}, err
		}
		return Initial{Kind: "file", Path: arg, File: loads}, nil
	}
	return bad("want zero, uniform:L, spike:L or file:PATH (rbb also uniform and spike; the supermarket model also fixed-point)")
}

// readInitialFile reads one load a line; the error names the file and line.
func readInitialFile(path string) ([]uint64, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, fmt.Errorf("--initial file:%s: %v", path, err)
	}
	defer f.Close()
	var loads []uint64
	sc := bufio.NewScanner(f)
	total := uint64(0)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--initial file:%s line %d: %q is not a load (want a non-negative integer)", path, line, clipText(s))
		}
		var carry uint64
		if total, carry = bits.Add64(total, x, 0); carry != 0 || total > maxInitialTotal {
			return nil, fmt.Errorf("--initial file:%s line %d: the loads add up to more than 2^62 balls", path, line)
		}
		if uint64(len(loads)) >= kernels.MaxBins {
			return nil, fmt.Errorf("--initial file:%s line %d: more than %d loads (the direct engine's bins)", path, line, uint64(kernels.MaxBins))
		}
		loads = append(loads, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--initial file:%s: %v", path, err)
	}
	if len(loads) == 0 {
		return nil, fmt.Errorf("--initial file:%s: no loads (want one non-negative integer a line)", path)
	}
	return loads, nil
}

// maxInitialTotal bounds the initial balls, far from overflow with --balls.
const maxInitialTotal = 1 << 62

// String is the form as given (file by its path).
func (in *Initial) String() string {
	switch {
	case in.Kind == "" || in.Kind == "zero":
		return "zero"
	case in.Kind == "file":
		return "file:" + in.Path
	case in.Kind == InitialFixedPoint:
		return in.Kind
	case in.Bare:
		return in.Kind
	}
	return in.Kind + ":" + strconv.FormatUint(in.L, 10)
}

// IsZero reports whether the trial starts from empty bins (today's start).
func (in *Initial) IsZero() bool { return in.Kind == "" || in.Kind == "zero" }

// FileBins is the number of loads of a file:PATH (0 for the other forms).
func (in *Initial) FileBins() uint64 { return uint64(len(in.File)) }

// Resolve checks the form against the bins and, for rbb (conserving: the
// initial vector is its m balls), against --balls; bare forms spread balls.
func (in *Initial) Resolve(bins, balls uint64, conserving bool) error {
	in.n, in.m = bins, balls
	if in.Bare && !conserving {
		return fmt.Errorf("--initial %s: give %s:L (bare %s spreads rbb's --balls; the other processes throw --balls on top of the initial loads)", in.Kind, in.Kind, in.Kind)
	}
	if in.Kind == "file" && uint64(len(in.File)) != bins {
		return fmt.Errorf("--initial file:%s: %d loads for %d bins; give one load a line for each bin (or leave --bins out to take n from the file)", in.Path, len(in.File), bins)
	}
	if in.Kind == "uniform" && !in.Bare {
		if hi, lo := bits.Mul64(in.L, bins); hi != 0 || lo > maxInitialTotal {
			return fmt.Errorf("--initial uniform:%d × %d bins is more than 2^62 balls", in.L, bins)
		}
	}
	if in.L > maxInitialTotal {
		return fmt.Errorf("--initial %s: more than 2^62 balls", in.String())
	}
	if conserving {
		if in.IsZero() {
			return fmt.Errorf("--initial zero: rbb's m balls must start somewhere; give uniform, spike, uniform:L, spike:L or file:PATH holding --balls balls")
		}
		if w := in.Total(); w != balls {
			return fmt.Errorf("--initial %s holds %d balls, and rbb runs --balls %d: they are the same balls, give the same number", in.String(), w, balls)
		}
	}
	return nil
}

// Total is W0, the balls of the initial vector.
func (in *Initial) Total() uint64 {
	switch in.Kind {
	case "uniform":
		if in.Bare {
			return in.m
		}
		return in.L * in.n
	case "spike":
		if in.Bare {
			return in.m
		}
		return in.L
	case "file":
		s := uint64(0)
		for _, x := range in.File {
			s += x
		}
		return s
	}
	return 0
}

// loadOf is the initial load of bin i.
func (in *Initial) loadOf(i uint64) uint64 {
	switch in.Kind {
	case "uniform":
		if in.Bare {
			q := in.m / in.n
			if i < in.m%in.n {
				q++
			}
			return q
		}
		return in.L
	case "spike":
		if i != 0 {
			return 0
		}
		if in.Bare {
			return in.m
		}
		return in.L
	case "file":
		return in.File[i]
	}
	return 0
}

// Top is the largest initial load of a deterministic form, without
// building its levels (0 for zero and fixed-point).
func (in *Initial) Top() uint64 {
	switch in.Kind {
	case "uniform", "spike":
		return in.loadOf(0)
	case "file":
		top := uint64(0)
		for _, x := range in.File {
			top = max(top, x)
		}
		return top
	}
	return 0
}

// MaxLoad is the largest initial load.
func (in *Initial) MaxLoad() uint64 {
	lo, counts := in.Levels()
	return lo + uint64(len(counts)) - 1
}

// Span is the largest minus the least initial load: the histogram engine
// holds every level between them.
func (in *Initial) Span() uint64 {
	switch in.Kind {
	case "spike":
		if in.n > 1 {
			return in.loadOf(0)
		}
		return 0
	case "uniform":
		if in.Bare && in.m%in.n != 0 {
			return 1
		}
		return 0
	case "file":
		lo, hi := uint64(math.MaxUint64), uint64(0)
		for _, x := range in.File {
			lo, hi = min(lo, x), max(hi, x)
		}
		return hi - lo
	}
	return 0
}

// MaxInitialSpan bounds the levels an initial vector may span on the
// histogram engine (its levels are dense from min to max).
const MaxInitialSpan = 1 << 24

// Levels is the initial vector as level counts: counts[i] bins of load lo+i,
// summing to n (Span() must be at most MaxInitialSpan).
func (in *Initial) Levels() (lo uint64, counts []uint64) {
	switch in.Kind {
	case "uniform":
		if in.Bare {
			q, r := in.m/in.n, in.m%in.n
			if r == 0 {
				return q, []uint64{in.n}
			}
			return q, []uint64{in.n - r, r}
		}
		return in.L, []uint64{in.n}
	case "spike":
		l := in.loadOf(0)
		if in.n == 1 || l == 0 {
			return l, []uint64{in.n}
		}
		counts = make([]uint64, l+1)
		counts[0], counts[l] = in.n-1, 1
		return 0, counts
	case "file":
		lo = in.File[0]
		for _, x := range in.File {
			lo = min(lo, x)
		}
		counts = make([]uint64, in.Span()+1)
		for _, x := range in.File {
			counts[x-lo]++
		}
		return lo, counts
	}
	return 0, []uint64{in.n}
}

// FillInitial writes the initial loads into loads (len n, all zero) and
// returns their maximum.
func FillInitial[L kernels.Load](in *Initial, loads []L) L {
	if in.IsZero() {
		return 0
	}
	var top L
	for i := range loads {
		v := L(in.loadOf(uint64(i)))
		loads[i] = v
		top = max(top, v)
	}
	return top
}
