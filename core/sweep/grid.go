package sweep

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"

	"github.com/balloc/balloc/internal/files"
)

// A sweep file (TOML) names a grid of experiments:
//
//	processes   = ["two-choice", "g-myopic-comp"]   # or process = "two-choice"
//	bins        = [1e3, 1e4]                       # numbers or "1e4"/"10^4" strings
//	balls       = ["1e6"]                          # or balls_per_bin = [1000]
//	trials      = 100
//	seed        = 1
//	checkpoints = 10
//	engine      = "auto"
//	alpha       = 1
//	[params]                                       # process parameters, a value or a list
//	g = [0, 1, 2, 4]
//
// Every process runs once per combination of bins, balls, the values of
// the parameters it takes and the values of the dynamic keys (balls that
// leave: arrival_rate = [0.5, 0.9], update_period = [1, 2, 5], …; see
// dynamicKeys), the dynamic keys varying fastest. Unknown keys, empty lists and invalid values are
// errors naming the file, the line and the key.
//
// A file may instead hold [[grid]] blocks, each a grid of its own over the
// top-level keys as defaults, its points in file order with its own trials
// (blocks.go). A file without blocks makes the points, in the order and
// with the hashes, it always made.

// Grid is a parsed sweep file.
type Grid struct {
	Path   string
	Source string       // the file's text, for the manifest
	Specs  []*core.Spec // one per grid point, in file order
	Hashes []string
}

// gridKeys are the top-level keys of a sweep file.
var gridKeys = append([]string{"process", "processes", "bins", "balls", "balls_per_bin", "trials", "seed", "checkpoints", "engine", "alpha", "params"}, dynamicKeys...)

// tomlLines calls each with every line of a sweep file's text, numbered
// from 1, without its comment and surrounding space.
func tomlLines(text string, each func(no int, line string)) {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if j := strings.IndexByte(line, '#'); j >= 0 && !strings.Contains(line[:j], `"`) {
			line = strings.TrimSpace(line[:j])
		}
		each(i+1, line)
	}
}

// keyLines maps "key" and "params.key" to the line they are set on.
func keyLines(text string) map[string]int {
	lines := map[string]int{}
	section := ""
	tomlLines(text, func(no int, line string) {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.Trim(line, "[] ")
			return
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			key := strings.Trim(strings.TrimSpace(k), `"`)
			if section != "" {
				key = section + "." + key
			}
			if _, seen := lines[key]; !seen {
				lines[key] = no
			}
		}
	})
	return lines
}

// MaxGridFile bounds a sweep file: a grid is a few lines, and a file read
// whole must not be able to exhaust memory.
const MaxGridFile = 16 << 20

// ReadGrid parses and validates a sweep file. Relative file: paths in it
// (graphs, hyperedges, ages) are taken from the file's folder.
func ReadGrid(path string) (*Grid, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxGridFile+1))
	f.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > MaxGridFile {
		return nil, fmt.Errorf("%s: more than the 16 MiB a sweep file may hold; a grid takes a few lines (split it into several sweep files)", path)
	}
	text := string(data)
	if err := CheckNesting(path, data); err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(text, &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	lines := keyLines(text)
	if _, ok := raw["grid"]; ok {
		return readBlocks(path, newSource(text), raw, lines)
	}
	if err := checkGridSize(path, "the grid's lists make", gridSize(raw), units.MemoryLimit()); err != nil {
		return nil, err
	}
	pts, err := readPoints(path, newSource(text), raw, lines, lines, nil)
	if err != nil {
		return nil, err
	}
	return &Grid{Path: path, Source: text, Specs: pts.specs, Hashes: pts.hashes}, nil
}

// points are the grid points of one grid (a file without [[grid]] blocks,
// or one block of a file with them), and what readBlocks checks across
// blocks.
type points struct {
	specs  []*core.Spec
	hashes []string
	procs  []string        // the processes it runs
	used   map[string]bool // the parameters some point kept
}

// readPoints makes the grid points of one grid: raw its keys, lines the
// line each key's literal is on (for numbers taken as written), at the line
// a message names for a key (lines, but for a parameter in an inline table
// its table's line). blk is nil for a file without blocks; for a [[grid]]
// block it is the block, and a message about a key the block leaves to the
// top level says which block it is about.
func readPoints(path string, src *source, raw map[string]any, lines, at map[string]int, blk *gridBlock) (*points, error) {
	bad := func(key, format string, a ...any) error {
		line := at[key]
		if line == 0 && strings.HasPrefix(key, "params.") {
			line = at["params"] // params = { g = 1 }: the inline table's line
		}
		err := fmt.Errorf("%s:%d: %s: %s", path, line, key, fmt.Sprintf(format, a...))
		if blk != nil && !blk.sets(key) {
			err = fmt.Errorf("%v (in the [[grid]] block of line %d)", err, blk.line)
		}
		return err
	}
	// noKey is an error no one key is to blame for (a key left out).
	noKey := func(format string, a ...any) error {
		if blk != nil {
			return fmt.Errorf("%s:%d: [[grid]]: %s", path, blk.line, fmt.Sprintf(format, a...))
		}
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
	var err error
	for k := range raw {
		if !slices.Contains(gridKeys, k) {
			return nil, bad(k, "not a sweep setting (known: %s)", strings.Join(gridKeys, ", "))
		}
	}
	// Values as strings, one or a list. A number is taken as written (see
	// numberText); an empty string is refused, not read as the default; a
	// list naming a value twice is refused, as on the command line.
	list := func(key string, v any) ([]string, error) {
		var items []any
		switch x := v.(type) {
		case []any:
			items = x
		case []map[string]any:
			return nil, bad(key, "want a value or a list of values, not tables")
		default:
			items = []any{x}
		}
		if len(items) == 0 {
			return nil, bad(key, "empty list: the grid would be empty")
		}
		tokens := valueTokens(src, lines[key])
		if len(tokens) != len(items) {
			tokens = nil
		}
		var out []string
		for i, it := range items {
			switch y := it.(type) {
			case string:
				if strings.TrimSpace(y) == "" {
					return nil, bad(key, "empty value %q: leave the key out for its default", y)
				}
				out = append(out, y)
			case int64:
				out = append(out, strconv.FormatInt(y, 10))
			case float64:
				tok := ""
				if tokens != nil {
					tok = tokens[i]
				}
				t, err := numberText(tok, y)
				if err != nil {
					return nil, bad(key, "%v", err)
				}
				out = append(out, t)
			case bool:
				out = append(out, strconv.FormatBool(y))
			default:
				return nil, bad(key, "unsupported value %v", it)
			}
			if slices.Contains(out[:i], out[i]) {
				return nil, bad(key, "lists %s twice", out[i])
			}
		}
		return out, nil
	}
	one := func(key string, def string) (string, error) {
		v, ok := raw[key]
		if !ok {
			return def, nil
		}
		vals, err := list(key, v)
		if err != nil {
			return "", err
		}
		if len(vals) != 1 {
			return "", bad(key, "want one value, not a list")
		}
		return vals[0], nil
	}
	raws := map[string][]string{} // the values of bins, balls and balls_per_bin as written
	counts := func(key string) ([]uint64, error) {
		vals, err := list(key, raw[key])
		if err != nil {
			return nil, err
		}
		raws[key] = vals
		var out []uint64
		for _, v := range vals {
			x, err := units.ParseCount(v)
			if err != nil {
				return nil, bad(key, "%v", err)
			}
			out = append(out, x)
		}
		return out, nil
	}

	var procs []string
	switch {
	case raw["process"] != nil && raw["processes"] != nil:
		return nil, bad("processes", "give process or processes, not both")
	case raw["process"] != nil:
		if procs, err = list("process", raw["process"]); err != nil {
			return nil, err
		}
	case raw["processes"] != nil:
		if procs, err = list("processes", raw["processes"]); err != nil {
			return nil, err
		}
	default:
		return nil, noKey("no processes: set processes = [\"two-choice\", ...]")
	}
	// A graph fixes the bins (its vertices), and so does a hyperedge file.
	fixed := false
	if p, ok := raw["params"].(map[string]any); ok {
		_, fixed = p["graph"]
		if h, ok := p["hyperedges"].(string); ok && strings.HasPrefix(h, "file:") {
			fixed = true
		}
		if h, ok := p["initial"].(string); ok && strings.HasPrefix(h, "file:") {
			fixed = true // n from the file (core/process/initial.go)
		}
	}
	bins := []uint64{0}
	if raw["bins"] != nil {
		if bins, err = counts("bins"); err != nil {
			return nil, err
		}
		for _, n := range bins {
			if n == 0 {
				return nil, bad("bins", "want at least 1 bin")
			}
		}
	} else if !fixed {
		return nil, noKey("no bins: set bins = [...]")
	}
	var balls, perBin []uint64
	switch {
	case raw["balls"] != nil && raw["balls_per_bin"] != nil:
		return nil, bad("balls_per_bin", "give balls or balls_per_bin, not both")
	case raw["balls"] != nil:
		if balls, err = counts("balls"); err != nil {
			return nil, err
		}
	case raw["balls_per_bin"] != nil:
		if perBin, err = counts("balls_per_bin"); err != nil {
			return nil, err
		}
	case raw["arrival_rate"] != nil:
		balls = []uint64{0} // a supermarket run is as long as time or events
	case raw["phases"] != nil:
		balls = []uint64{0} // the phases' total steps (core.Spec.checkDynamic)
	default:
		return nil, noKey("no balls: set balls = [...] or balls_per_bin = [...]")
	}
	var com core.Common
	for _, s := range []struct {
		key, def string
		dst      *uint64
	}{{"trials", "1", nil}, {"seed", "1", &com.Seed}, {"checkpoints", "0", &com.Checkpoints}} {
		v, err := one(s.key, s.def)
		if err != nil {
			return nil, err
		}
		var x uint64
		if s.key == "checkpoints" {
			x, com.CheckpointsLog, err = core.ParseCheckpoints(v)
		} else {
			x, err = units.ParseCount(v)
		}
		if err != nil {
			return nil, bad(s.key, "%v", err)
		}
		if s.dst != nil {
			*s.dst = x
		} else {
			if why := core.TrialsRule(x); why != "" {
				return nil, bad(s.key, "%s", why)
			}
			com.Trials = int(x)
		}
	}
	engine, err := one("engine", "auto")
	if err != nil {
		return nil, err
	}
	com.Engine = core.Engine(engine)
	alpha, err := one("alpha", "1")
	if err != nil {
		return nil, err
	}
	if com.Alpha, err = core.ParseAlpha(alpha); err != nil {
		return nil, bad("alpha", "want a real number")
	}
	if why := core.AlphaRule(com.Alpha); why != "" {
		return nil, bad("alpha", "%s", why)
	}
	dyn, err := readDynamic(raw, list, bad)
	if err != nil {
		return nil, err
	}

	params := map[string][]string{}
	if p, ok := raw["params"]; ok {
		table, ok := p.(map[string]any)
		if !ok {
			return nil, bad("params", "want a table [params]")
		}
		for k, v := range table {
			key := "params." + k
			if process.FlagOf(k) == nil {
				return nil, bad(key, "not a process parameter")
			}
			vals, err := list(key, v)
			if err != nil {
				return nil, err
			}
			for i, val := range vals {
				vals[i] = besideFile(path, k, val)
			}
			params[k] = vals
		}
	}

	g := &points{procs: procs}
	used := map[string]bool{}
	// Where each grid point came from, to name the key of two that coincide.
	type origin struct {
		proc, bin, ball int
		combo           map[string]string
		dyn             map[string]string // the dynamic keys' values
	}
	byHash := map[string]origin{}
	// Two grid points with one hash are one experiment listed twice, under
	// two spellings ("1e2" and 100, 2 and 2.0): refused, like a value a
	// command-line list repeats, naming the key whose values coincide.
	collide := func(a, b origin) error {
		twice := func(key, x, y string) error {
			return bad(key, "lists %s twice (%q and %q are one value)", y, x, y)
		}
		switch {
		case a.proc != b.proc:
			return bad(map[bool]string{true: "processes", false: "process"}[raw["processes"] != nil], "lists %s twice", procs[b.proc])
		case a.bin != b.bin:
			return twice("bins", raws["bins"][a.bin], raws["bins"][b.bin])
		case a.ball != b.ball:
			key := "balls"
			if perBin != nil {
				key = "balls_per_bin"
			}
			return twice(key, raws[key][a.ball], raws[key][b.ball])
		}
		for _, k := range dynamicKeys {
			if a.dyn[k] != b.dyn[k] {
				return twice(k, a.dyn[k], b.dyn[k])
			}
		}
		keys := slices.Sorted(maps.Keys(b.combo))
		for k := range a.combo {
			if _, ok := b.combo[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if a.combo[k] != b.combo[k] {
				if a.combo[k] == "" || b.combo[k] == "" { // one leaves k at its default
					return bad("params."+k, "lists %s, which is the default of %s; leave it out or list another value", a.combo[k]+b.combo[k], procs[b.proc])
				}
				return twice("params."+k, a.combo[k], b.combo[k])
			}
		}
		return bad(map[bool]string{true: "processes", false: "process"}[raw["processes"] != nil], "%s: two grid points are one experiment", procs[b.proc])
	}
	for pi, name := range procs {
		proc, err := process.Lookup(name)
		if err != nil {
			return nil, bad(map[bool]string{true: "processes", false: "process"}[raw["processes"] != nil], "%v", err)
		}
		combos, kept := proc.Combos(params)
		for k := range kept {
			used[k] = true
		}
		for bi, n := range bins {
			ms, per := balls, perBin
			if perBin != nil {
				ms = make([]uint64, len(perBin)) // Balls = 0: NewSpec multiplies
			}
			for mi, m := range ms {
				for _, combo := range combos {
					for _, dc := range dyn {
						c := com
						c.Bins, c.Balls = n, m
						if per != nil {
							c.BallsPerBin = per[mi]
						}
						c.Dynamic = dc.d
						c.Dynamic.Phases = slices.Clone(dc.d.Phases)
						s, err := core.NewSpec(name, combo, c)
						if err != nil {
							// Blame the key of the first flag the error names.
							key, at := "bins", len(err.Error())
							candidates := []string{"bins", "balls", "checkpoints", "engine", "alpha", "trials"}
							for k := range combo {
								candidates = append(candidates, k)
							}
							for _, k := range candidates {
								if i := strings.Index(err.Error(), "--"+k+" "); i >= 0 && i < at {
									key, at = k, i
									if _, ok := combo[k]; ok {
										key = "params." + k
									}
								}
							}
							if k := dynamicKey(err.Error()); k != "" {
								key = k
							}
							if (key == "balls" || strings.Contains(err.Error(), "--balls-per-bin")) && perBin != nil {
								key = "balls_per_bin"
							}
							return nil, bad(key, "%v", err)
						}
						h := s.Hash()
						here := origin{pi, bi, mi, combo, dc.vals}
						if prev, ok := byHash[h]; ok {
							return nil, collide(prev, here)
						}
						byHash[h] = here
						g.specs = append(g.specs, s)
						g.hashes = append(g.hashes, h)
					}
				}
			}
		}
	}
	g.used = used
	for k := range params {
		// A block answers for the parameters it lists; readBlocks for the
		// top level's, which need a use in some block only.
		if !used[k] && (blk == nil || blk.sets("params."+k)) {
			if msg := process.UnusedParamError(k, procs); strings.Contains(msg, " only") || strings.Contains(msg, " or more") {
				return nil, bad("params."+k, "%s", msg)
			}
			return nil, bad("params."+k, "applies to none of %s", strings.Join(procs, ", "))
		}
	}
	return g, nil
}

// numberText is a TOML float as balloc reads it: tok is its literal as
// written (empty when unknown), y what the TOML decoder made of it. A number
// is taken exactly as written: where y is not exactly the literal's value
// (9007199254740993.0 decodes to …992), an integer literal is given as its
// exact integer, so an integer key takes exactly that value or refuses it as
// too large, and a literal that is no integer but decodes to one is passed on
// as written, so an integer key refuses it (1.0000000000000000001 is not an
// integer) and a real one parses it as the float it always was.
func numberText(tok string, y float64) (string, error) {
	old := strconv.FormatFloat(y, 'g', -1, 64)
	if y == math.Trunc(y) && math.Abs(y) < 1e18 {
		old = strconv.FormatFloat(y, 'f', -1, 64)
	}
	if tok == "" {
		if y == math.Trunc(y) && math.Abs(y) >= 1<<53 {
			return "", fmt.Errorf("%s: a float this large may not be the number written; write it as an integer or a string", old)
		}
		return old, nil
	}
	r, ok := new(big.Rat).SetString(strings.ReplaceAll(tok, "_", ""))
	if !ok { // inf, nan
		return old, nil
	}
	if f, exact := r.Float64(); exact && f == y {
		return old, nil
	}
	if r.IsInt() {
		return r.Num().String(), nil
	}
	if y == math.Trunc(y) { // rounded to an integer: an integer key must see it is none
		return strings.ReplaceAll(tok, "_", ""), nil
	}
	return old, nil
}

// valueTokens is the literals of the value set on line (1-based) of a TOML
// text: one for a scalar, one per item for an array (which may span lines
// and hold comments). It returns nil where it cannot tell, and ReadGrid then
// relies on the decoded values alone.
func valueTokens(src *source, line int) []string {
	if line < 1 || line > len(src.starts) {
		return nil
	}
	text, at := src.text, src.starts[line-1]
	// The '=' after the key, outside a quoted key.
	inQuote := byte(0)
	for ; at < len(text) && text[at] != '\n'; at++ {
		c := text[at]
		if inQuote != 0 {
			if c == inQuote {
				inQuote = 0
			}
			continue
		}
		if c == '"' || c == '\'' {
			inQuote = c
		} else if c == '=' {
			break
		}
	}
	if at >= len(text) || text[at] != '=' {
		return nil
	}
	rest := text[at+1:]
	var tokens []string
	var cur strings.Builder
	depth := 0
	array := false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(rest) && rest[j] != c && rest[j] != '\n' {
				if c == '"' && rest[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(rest) || rest[j] != c {
				return nil // a multi-line string: not for a sweep key
			}
			cur.WriteString(rest[i : j+1])
			i = j
		case c == '#':
			for i < len(rest) && rest[i] != '\n' {
				i++
			}
			if !array {
				return append(tokens, strings.TrimSpace(cur.String()))
			}
		case c == '\n' && !array:
			return append(tokens, strings.TrimSpace(cur.String()))
		case c == '[' && depth == 0 && strings.TrimSpace(cur.String()) == "" && !array:
			array, depth = true, 1
		case c == '[' || c == '{':
			depth++
			cur.WriteByte(c)
		case (c == ']' || c == '}') && depth > 1:
			depth--
			cur.WriteByte(c)
		case c == ']' && array && depth == 1:
			if t := strings.TrimSpace(cur.String()); t != "" {
				tokens = append(tokens, t)
			}
			return tokens
		case c == ',' && array && depth == 1:
			tokens = append(tokens, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if array {
		return nil
	}
	return append(tokens, strings.TrimSpace(cur.String()))
}

// fileParams are the parameters that name a file: graphs and hyperedges as
// file:PATH, ages as a path.
var fileParams = map[string]string{"graph": "file:", "hyperedges": "file:", "ages": "", "initial": "file:"}

// besideFile resolves a relative file path that the sweep file at sweep
// gives for param against that file's folder, where its author sees it,
// whatever the working directory.
func besideFile(sweep, param, val string) string {
	prefix, ok := fileParams[param]
	if !ok {
		return val
	}
	p, ok := strings.CutPrefix(val, prefix)
	if !ok || p == "" || filepath.IsAbs(p) {
		return val
	}
	return prefix + filepath.Join(filepath.Dir(sweep), p)
}
