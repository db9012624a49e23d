package adversary

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
	"github.com/balloc/balloc/kernels"
)

// MaxOps is the most operations a sequence may hold: each is 4 bytes, and
// each insertion 4 more for its ball's bin, so 2^27 operations are at most
// 1 GiB.
const MaxOps = 1 << 27

// Seq is a checked sequence: every deletion names a ball inserted earlier
// and not yet deleted.
type Seq struct {
	Name    string   // the file or built-in it was read from
	Ops     []uint32 // kernels.AdvInsert, or k ≥ 1: delete the k-th inserted ball
	Inserts uint32   // insertions
	Peak    uint32   // the most balls present at once
	End     uint32   // balls present at the end
}

// builder checks operations as they are added.
type builder struct {
	seq     Seq
	present []bool // present[k-1]: ball k is in a bin
	alive   uint32
}

func (b *builder) room(k uint64) error {
	if uint64(len(b.seq.Ops))+k > MaxOps {
		return fmt.Errorf("more than %d operations", MaxOps)
	}
	return nil
}

func (b *builder) insert(k uint64) error {
	if err := b.room(k); err != nil {
		return err
	}
	for range k {
		b.seq.Ops = append(b.seq.Ops, kernels.AdvInsert)
		b.present = append(b.present, true)
		b.alive++
	}
	b.seq.Peak = max(b.seq.Peak, b.alive)
	return nil
}

func (b *builder) delete(k uint64) error {
	if k == 0 || k > uint64(len(b.present)) {
		return fmt.Errorf("ball %d has not been inserted (%d so far)", k, len(b.present))
	}
	if !b.present[k-1] {
		return fmt.Errorf("ball %d was deleted already", k)
	}
	if err := b.room(1); err != nil {
		return err
	}
	b.present[k-1] = false
	b.alive--
	b.seq.Ops = append(b.seq.Ops, uint32(k))
	return nil
}

func (b *builder) done(name string) *Seq {
	b.seq.Name = name
	b.seq.Inserts = uint32(len(b.present))
	b.seq.End = b.alive
	return &b.seq
}

// Parse reads a sequence file: one operation a line,
//
//   - insert one ball
//   - C        insert C balls (a count: 1000, 1e6, 10^6)
//   - K        delete ball K (the K-th inserted, counting from 1)
//   - A..B     delete balls A, A+1, …, B in that order
//   - A..B/S   delete balls A, A+S, A+2S, … up to B
//
// with blank lines and everything after a # ignored. The first fault is
// one error naming the file and line.
func Parse(r io.Reader, name string) (*Seq, error) {
	var b builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if err := parseLine(&b, text); err != nil {
			return nil, fmt.Errorf("%s:%d: %q: %v", name, line, text, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if b.seq.Ops == nil {
		return nil, fmt.Errorf("%s: no operations (want lines like \"+ 1000\" and \"- 7\")", name)
	}
	return b.done(name), nil
}

func parseLine(b *builder, text string) error {
	op, arg := text[0], strings.TrimSpace(text[1:])
	switch op {
	case '+':
		if arg == "" {
			return b.insert(1)
		}
		c, err := units.ParseCount(arg)
		if err != nil || c == 0 {
			return fmt.Errorf("want + or + C with C a positive count")
		}
		if c > MaxOps {
			return fmt.Errorf("more than %d operations", MaxOps)
		}
		return b.insert(c)
	case '-':
		lo, hi, step, err := parseRange(arg)
		if err != nil {
			return err
		}
		for k := lo; k <= hi; k += step {
			if err := b.delete(k); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("an operation is + (insert) or - (delete)")
}

// parseRange reads K, A..B or A..B/S.
func parseRange(arg string) (lo, hi, step uint64, err error) {
	bad := fmt.Errorf("want - K, - A..B or - A..B/S with 1 ≤ A ≤ B and S ≥ 1")
	step = 1
	if i := strings.IndexByte(arg, '/'); i >= 0 {
		step, err = strconv.ParseUint(arg[i+1:], 10, 32)
		if err != nil || step == 0 {
			return 0, 0, 0, bad
		}
		arg = arg[:i]
		if !strings.Contains(arg, "..") {
			return 0, 0, 0, bad
		}
	}
	a, c, isRange := strings.Cut(arg, "..")
	lo, err = strconv.ParseUint(a, 10, 32)
	if err != nil || lo == 0 {
		return 0, 0, 0, bad
	}
	hi = lo
	if isRange {
		hi, err = strconv.ParseUint(c, 10, 32)
		if err != nil || hi < lo {
			return 0, 0, 0, bad
		}
	}
	return lo, hi, step, nil
}

// Builtins names the built-in sequences and their arguments.
const Builtins = "alternate:M, refill:M, random-half:M[,S], sliding:M,R"

// Builtin makes a built-in sequence (doc.go describes each).
func Builtin(spec string) (*Seq, error) {
	name, args, _ := strings.Cut(spec, ":")
	var nums []uint64
	if args != "" {
		for _, f := range strings.Split(args, ",") {
			v, err := units.ParseCount(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("--builtin %q: %q is not a count", spec, f)
			}
			nums = append(nums, v)
		}
	}
	want := map[string][2]int{"alternate": {1, 1}, "refill": {1, 1}, "random-half": {1, 2}, "sliding": {2, 2}}
	arity, ok := want[name]
	if !ok {
		return nil, fmt.Errorf("--builtin %q: unknown; want one of %s", spec, Builtins)
	}
	if len(nums) < arity[0] || len(nums) > arity[1] {
		return nil, fmt.Errorf("--builtin %q: want %s", spec, usage(name))
	}
	m := nums[0]
	if m < 2 || m > MaxOps/2 {
		return nil, fmt.Errorf("--builtin %q: M = %d: want 2 ≤ M ≤ %d", spec, m, MaxOps/2)
	}
	var b builder
	_ = b.insert(m)
	switch name {
	case "alternate", "refill":
		for k := uint64(1); k <= m; k += 2 {
			_ = b.delete(k)
		}
		if name == "refill" {
			_ = b.insert((m + 1) / 2)
		}
	case "random-half":
		seed := uint64(1)
		if len(nums) == 2 {
			seed = nums[1]
		}
		// The first ⌊M/2⌋ places of a Fisher–Yates shuffle of 1..M, drawn
		// from balloc's own generator so the sequence never changes with a
		// Go release.
		rng := kernels.TrialStream(seed, 0, kernels.LaneStructure)
		perm := make([]uint32, m)
		for k := range perm {
			perm[k] = uint32(k) + 1
		}
		for k := uint64(0); k < m/2; k++ {
			j := k + uint64(rng.Bounded(uint32(m-k)))
			perm[k], perm[j] = perm[j], perm[k]
			_ = b.delete(uint64(perm[k]))
		}
	case "sliding":
		r := nums[1]
		if r > (MaxOps-m)/2 {
			return nil, fmt.Errorf("--builtin %q: R = %d: want M + 2R ≤ %d operations", spec, r, MaxOps)
		}
		for k := uint64(1); k <= r; k++ {
			_ = b.delete(k)
			_ = b.insert(1)
		}
	}
	return b.done(spec), nil
}

func usage(name string) string {
	for _, u := range strings.Split(Builtins, ", ") {
		if strings.HasPrefix(u, name+":") {
			return u
		}
	}
	return Builtins
}

// ReadFile reads a sequence file, refusing what is not a regular file (a
// pipe or a device would be read once, and a folder not at all); its
// errors name the file, and a bad line its number.
func ReadFile(name string) (*Seq, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, files.Cause(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, files.Cause(err))
	}
	defer fh.Close()
	return Parse(fh, name)
}
