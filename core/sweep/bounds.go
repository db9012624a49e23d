package sweep

import (
	"bytes"
	"fmt"

	"github.com/balloc/balloc/core/units"
)

// A sweep file is read whole, decoded by a recursive TOML parser and
// expanded into one spec per grid point, so each step is bounded before it
// runs: the file's size (MaxGridFile), how deep its keys and values nest
// (MaxNesting, before decoding: 8000 nested inline tables took the decoder
// 63 s and 2.6 GB, 16000 ran out of memory), and the points its lists
// make (MaxGridPoints, before expanding: a 1000×1000×1000 grid fits in
// 12 KB).

// MaxNesting is the deepest a sweep file's keys and values may nest: a
// bracket or brace opened, or a dotted key's part. A sweep file needs 3
// ([[grid]] with params = { g = [1, 2] }).
const MaxNesting = 32

// MaxGridPoints is the most grid points a sweep file may name: a
// validated point holds a spec of a few kilobytes, so a million take a few
// gigabytes before the first trial; sweeps of thousands of points are the
// rule.
const MaxGridPoints = 1 << 20

// source is a sweep file's text with the offset of each line's start, so
// that finding a key's literal costs its line's length, not the file's:
// with one scan from the top per key, 32k [[grid]] blocks took 33 s.
type source struct {
	text   string
	starts []int // starts[i]: the offset of line i+1
}

func newSource(text string) *source {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &source{text: text, starts: starts}
}

// gridSize bounds the points of a grid from its decoded keys: the product
// of the lengths of the lists that vary (processes, bins, balls, the
// dynamic keys and the parameters), saturating. Combinations a process
// drops make the real count smaller, never larger.
func gridSize(raw map[string]any) uint64 {
	n := uint64(1)
	count := func(v any) {
		if l, ok := v.([]any); ok {
			n = units.Mul(n, uint64(len(l)))
		}
	}
	for _, k := range append([]string{"process", "processes", "bins", "balls", "balls_per_bin"}, dynamicKeys...) {
		count(raw[k])
	}
	if p, ok := raw["params"].(map[string]any); ok {
		for _, v := range p {
			count(v)
		}
	}
	return n
}

// pointBytes bounds the memory of one validated grid point: its spec, hash
// and manifest entry (a grid of 10^5 one-choice points peaks 95 MB above a
// run's start, under 1 KiB a point; twice that for processes with more
// parameters).
const pointBytes = 2 << 10

// checkGridSize refuses n grid points (what says where they come from)
// beyond MaxGridPoints or the memory available (mem, read once a file:
// reading the limits costs a few files of /proc), before any is made.
func checkGridSize(where, what string, n uint64, mem units.Memory) error {
	if n > MaxGridPoints {
		return fmt.Errorf("%s: %s %s points, more than the %s a sweep file may name; split it into several sweeps", where, what, units.FormatCount(n), units.FormatCount(MaxGridPoints))
	}
	if mem.Bytes > 0 && units.Mul(n, pointBytes) > mem.Bytes {
		return fmt.Errorf("%s: %s %s points, whose specs need up to %s, more than the %v; split it into several sweeps", where, what, units.FormatCount(n), units.FormatBytes(float64(units.Mul(n, pointBytes))), mem)
	}
	return nil
}

// CheckNesting refuses a TOML text nesting deeper than MaxNesting, before
// the decoder sees it (sweep files, summarize --compare files): it follows strings (basic, literal, multi-line) and
// comments, counts the brackets and braces open and the parts of the key
// being read, and names the line where the limit is passed.
func CheckNesting(path string, b []byte) error {
	depth, line := 0, 1
	var open []byte // '[' or '{' for each level open, up to MaxNesting
	inKey, dots := true, 0
	deep := func() error {
		return fmt.Errorf("%s:%d: keys and values nested more than %d deep; balloc's TOML files need 3 at most (a [[grid]] block with params = { g = [1, 2] })", path, line, MaxNesting)
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\n':
			line++
			if depth == 0 || (len(open) > 0 && open[len(open)-1] == '{') {
				inKey, dots = depth == 0, 0
			}
		case '#':
			for i+1 < len(b) && b[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			q := []byte{c, c, c}
			if bytes.HasPrefix(b[i:], q) { // multi-line
				end := bytes.Index(b[i+3:], q)
				if end < 0 {
					return nil // unterminated: the decoder says where
				}
				line += bytes.Count(b[i:i+3+end], []byte{'\n'})
				i += 3 + end + 2
				for i+1 < len(b) && b[i+1] == c { // """a"""" ends on the last three
					i++
				}
				continue
			}
			for i++; i < len(b) && b[i] != c && b[i] != '\n'; i++ {
				if c == '"' && b[i] == '\\' {
					i++
				}
			}
			if i < len(b) && b[i] == '\n' {
				line++
			}
		case '=':
			inKey, dots = false, 0
		case '.':
			if inKey {
				if dots++; depth+dots >= MaxNesting {
					return deep()
				}
			}
		case '[', '{':
			if depth == 0 && c == '[' && inKey {
				dots = 0 // a table header: its key follows
			}
			if depth++; depth > MaxNesting {
				return deep()
			}
			open = append(open, c)
			if c == '{' {
				inKey, dots = true, 0
			}
		case ']', '}':
			if depth > 0 {
				depth--
				open = open[:len(open)-1]
			}
		case ',':
			if len(open) > 0 && open[len(open)-1] == '{' {
				inKey, dots = true, 0
			}
		}
	}
	return nil
}
