package process

import (
	"bufio"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"

	"github.com/balloc/balloc/internal/files"
)

// Ages is tau-delay's empirical law of read ages (--delay empirical), held
// sparsely: the ages of positive count, increasing, with their counts, and
// Tau, the largest age listed (a line "age 0" still sets it). A file may
// list an age of 2^32 − 2 without balloc holding 2^32 counts.
type Ages struct {
	Age   []uint32
	Count []uint64
	Tau   uint64
}

// maxAgesLine bounds a line of an ages file ("age count", perhaps with a
// comment): a file without newlines is not read whole.
const maxAgesLine = 1 << 20

// agesBytesPerLine bounds what one line of an ages file can cost: the
// pair read (16, doubled while the slice grows), the law kept (12) and its
// alias table (kernels.AgesMemory, 45).
const agesBytesPerLine = 32 + 12 + 45

// ReadAges reads a law of ages: lines "age count" (blank, comma or tab
// separated; # comments), ages below 2^32 − 1, at least one positive count,
// the counts adding up to less than 2^64. An age listed twice adds its
// counts. Errors name the file and line.
func ReadAges(path string) (*Ages, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, fmt.Errorf("--ages: %v", err)
	}
	defer f.Close()
	// Each line of 4 bytes or more ("0 1\n") can add an age: refuse a file
	// whose ages might not fit before reading it.
	limit := uint64(0)
	mem := units.MemoryLimit()
	if mem.Bytes > 0 {
		limit = max(mem.Bytes/agesBytesPerLine, 1)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && limit > 0 {
		if lines := uint64(fi.Size())/4 + 1; lines > limit {
			return nil, fmt.Errorf("--ages %s: a file of %s may list %d ages, whose table needs up to %s, more than the %v; use a shorter file (one line per distinct age)",
				path, units.FormatBytes(float64(fi.Size())), lines, units.FormatBytes(float64(units.Mul(lines, agesBytesPerLine))), mem)
		}
	}
	type pair struct {
		age   uint32
		count uint64
	}
	var pairs []pair
	total, tau := uint64(0), uint64(0)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxAgesLine)
	ln := 0
	for sc.Scan() {
		ln++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fs := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 2 {
			return nil, fmt.Errorf("--ages %s:%d: want \"age count\", got %q", path, ln, clipText(strings.TrimSpace(line)))
		}
		a, err1 := strconv.ParseUint(fs[0], 10, 64)
		c, err2 := strconv.ParseUint(fs[1], 10, 64)
		if err1 != nil || err2 != nil || a > 1<<32-2 {
			return nil, fmt.Errorf("--ages %s:%d: want an age in [0, 4294967294] and a count ≥ 0, got %q", path, ln, clipText(strings.TrimSpace(line)))
		}
		var carry uint64
		if total, carry = bits.Add64(total, c, 0); carry != 0 {
			return nil, fmt.Errorf("--ages %s:%d: the counts add up to more than 2^64 − 1; scale them down (only their ratios matter)", path, ln)
		}
		tau = max(tau, a)
		if c > 0 {
			if limit > 0 && uint64(len(pairs)) >= limit {
				return nil, fmt.Errorf("--ages %s:%d: more ages than the %v can hold; use a shorter file (one line per distinct age)", path, ln, mem)
			}
			pairs = append(pairs, pair{uint32(a), c})
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("--ages %s:%d: a line longer than %s; want \"age count\" lines", path, ln+1, units.FormatBytes(maxAgesLine))
		}
		return nil, fmt.Errorf("--ages %s: %v", path, err)
	}
	if total == 0 {
		return nil, fmt.Errorf("--ages %s: no ages with a positive count", path)
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return int(int64(x.age) - int64(y.age)) })
	ages := &Ages{Tau: tau}
	for _, p := range pairs {
		if k := len(ages.Age); k > 0 && ages.Age[k-1] == p.age {
			ages.Count[k-1] += p.count // no overflow: the total fits
			continue
		}
		ages.Age = append(ages.Age, p.age)
		ages.Count = append(ages.Count, p.count)
	}
	return fitsMemory(path, ages, mem)
}

// fitsMemory is law a read from path, or a refusal when its draw table
// would not fit in mem: one entry per age of 0 … τ below
// kernels.DenseAges (up to 2^20 entries for a single line), else one per
// listed age.
func fitsMemory(path string, a *Ages, mem units.Memory) (*Ages, error) {
	if need := kernels.AgesMemory(len(a.Age), a.Tau); mem.Bytes > 0 && need > mem.Bytes {
		return nil, fmt.Errorf("--ages %s: the law's draw table needs %s, more than the %v", path, units.FormatBytes(float64(need)), mem)
	}
	return a, nil
}

// AgesFromWeights is the law with weights[a] reads of age a (a dense
// table, as a measured staleness gives it); τ is len(weights) − 1. Nil when
// no weight is positive.
func AgesFromWeights(weights []uint64) *Ages {
	if len(weights) == 0 {
		return nil
	}
	ages := &Ages{Tau: uint64(len(weights) - 1)}
	for a, w := range weights {
		if w > 0 {
			ages.Age = append(ages.Age, uint32(a))
			ages.Count = append(ages.Count, w)
		}
	}
	if len(ages.Age) == 0 {
		return nil
	}
	return ages
}

// HashText is the law as Spec.Hash writes it: the dense counts 0 … τ as a
// JSON array while kernels.Ages draws from the dense table (the text
// balloc always hashed), else the ages with their counts, so that a law
// that draws differently hashes differently.
func (a *Ages) HashText() string {
	var b strings.Builder
	if a.Tau+1 <= kernels.DenseAges {
		b.WriteByte('[')
		k := 0
		for age := uint64(0); age <= a.Tau; age++ {
			if age > 0 {
				b.WriteByte(',')
			}
			c := uint64(0)
			if k < len(a.Age) && uint64(a.Age[k]) == age {
				c = a.Count[k]
				k++
			}
			b.WriteString(strconv.FormatUint(c, 10))
		}
		b.WriteByte(']')
		return b.String()
	}
	fmt.Fprintf(&b, "sparse tau=%d", a.Tau)
	for k, age := range a.Age {
		fmt.Fprintf(&b, " %d:%d", age, a.Count[k])
	}
	return b.String()
}

// clipText shortens a line quoted in an error.
func clipText(s string) string {
	const most = 60
	if len(s) > most {
		return s[:most] + "..."
	}
	return s
}
