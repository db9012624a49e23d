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

// gridReader reads the keys of one grid: raw its keys, lines the line each
// key's literal is on (for numbers taken as written), at the line a message
// names for a key (lines, but for a parameter in an inline table its
// table's line). blk is nil for a file without blocks; for a [[grid]] block
// it is the block, and a message about a key the block leaves to the top
// level says which block it is about.
type gridReader struct {
	path      string
	src       *source
	raw       map[string]any
	lines, at map[string]int
	blk       *gridBlock
	raws      map[string][]string // the values of bins, balls and balls_per_bin as written
}

// readPoints makes the grid points of one grid (gridReader says what its
// arguments are): it reads the keys into Axes and expands them (Expand).
func readPoints(path string, src *source, raw map[string]any, lines, at map[string]int, blk *gridBlock) (*points, error) {
	r := &gridReader{path: path, src: src, raw: raw, lines: lines, at: at, blk: blk, raws: map[string][]string{}}
	a, err := r.axes()
	if err != nil {
		return nil, err
	}
	e, err := Expand(a, Expansion{
		Lookup: func(_ int, err error) error { return r.bad(r.processKey(), "%v", err) },
		Spec:   func(o Origin, err error) error { return r.specError(o, err, a.PerBin != nil) },
		Duplicate: func(prev, here Origin) error {
			return r.collide(prev, here, a.Processes, a.PerBin != nil)
		},
	})
	if err != nil {
		return nil, err
	}
	for k := range a.Params {
		// A block answers for the parameters it lists; readBlocks for the
		// top level's, which need a use in some block only.
		if !e.Used[k] && (blk == nil || blk.sets("params."+k)) {
			if msg := process.UnusedParamError(k, a.Processes); strings.Contains(msg, " only") || strings.Contains(msg, " or more") {
				return nil, r.bad("params."+k, "%s", msg)
			}
			return nil, r.bad("params."+k, "applies to none of %s", strings.Join(a.Processes, ", "))
		}
	}
	return &points{specs: e.Specs, hashes: e.Hashes, procs: a.Processes, used: e.Used}, nil
}

// axes reads every key of the grid into Axes, each value checked alone;
// the first error is the one a message names.
func (r *gridReader) axes() (Axes, error) {
	var a Axes
	for k := range r.raw {
		if !slices.Contains(gridKeys, k) {
			return a, r.bad(k, "not a sweep setting (known: %s)", strings.Join(gridKeys, ", "))
		}
	}
	var err error
	if a.Processes, err = r.processes(); err != nil {
		return a, err
	}
	if a.Bins, err = r.bins(); err != nil {
		return a, err
	}
	if a.Balls, a.PerBin, err = r.balls(); err != nil {
		return a, err
	}
	if a.Common, err = r.common(); err != nil {
		return a, err
	}
	if a.Dynamic, err = readDynamic(r.raw, r.list, r.bad); err != nil {
		return a, err
	}
	a.Params, err = r.params()
	return a, err
}

// bad is an error about key, at its line.
func (r *gridReader) bad(key, format string, a ...any) error {
	line := r.at[key]
	if line == 0 && strings.HasPrefix(key, "params.") {
		line = r.at["params"] // params = { g = 1 }: the inline table's line
	}
	err := fmt.Errorf("%s:%d: %s: %s", r.path, line, key, fmt.Sprintf(format, a...))
	if r.blk != nil && !r.blk.sets(key) {
		err = fmt.Errorf("%v (in the [[grid]] block of line %d)", err, r.blk.line)
	}
	return err
}

// noKey is an error no one key is to blame for (a key left out).
func (r *gridReader) noKey(format string, a ...any) error {
	if r.blk != nil {
		return fmt.Errorf("%s:%d: [[grid]]: %s", r.path, r.blk.line, fmt.Sprintf(format, a...))
	}
	return fmt.Errorf("%s: %s", r.path, fmt.Sprintf(format, a...))
}

// list reads a key's values as strings, one or a list. A number is taken
// as written (see numberText); an empty string is refused, not read as the
// default; a list naming a value twice is refused, as on the command line.
func (r *gridReader) list(key string, v any) ([]string, error) {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []map[string]any:
		return nil, r.bad(key, "want a value or a list of values, not tables")
	default:
		items = []any{x}
	}
	if len(items) == 0 {
		return nil, r.bad(key, "empty list: the grid would be empty")
	}
	tokens := valueTokens(r.src, r.lines[key])
	if len(tokens) != len(items) {
		tokens = nil
	}
	var out []string
	for i, it := range items {
		tok := ""
		if tokens != nil {
			tok = tokens[i]
		}
		v, err := r.value(key, it, tok)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if slices.Contains(out[:i], out[i]) {
			return nil, r.bad(key, "lists %s twice", out[i])
		}
	}
	return out, nil
}

// value is one TOML value of key as a string; tok is its literal as
// written, "" when unknown.
func (r *gridReader) value(key string, it any, tok string) (string, error) {
	switch y := it.(type) {
	case string:
		if strings.TrimSpace(y) == "" {
			return "", r.bad(key, "empty value %q: leave the key out for its default", y)
		}
		return y, nil
	case int64:
		return strconv.FormatInt(y, 10), nil
	case float64:
		t, err := numberText(tok, y)
		if err != nil {
			return "", r.bad(key, "%v", err)
		}
		return t, nil
	case bool:
		return strconv.FormatBool(y), nil
	}
	return "", r.bad(key, "unsupported value %v", it)
}

// one reads a key that takes one value, or def when it is left out.
func (r *gridReader) one(key string, def string) (string, error) {
	v, ok := r.raw[key]
	if !ok {
		return def, nil
	}
	vals, err := r.list(key, v)
	if err != nil {
		return "", err
	}
	if len(vals) != 1 {
		return "", r.bad(key, "want one value, not a list")
	}
	return vals[0], nil
}

// counts reads a list of counts (bins, balls, balls_per_bin), keeping the
// values as written for messages.
func (r *gridReader) counts(key string) ([]uint64, error) {
	vals, err := r.list(key, r.raw[key])
	if err != nil {
		return nil, err
	}
	r.raws[key] = vals
	var out []uint64
	for _, v := range vals {
		x, err := units.ParseCount(v)
		if err != nil {
			return nil, r.bad(key, "%v", err)
		}
		out = append(out, x)
	}
	return out, nil
}

// processKey is the key that names the processes: process or processes.
func (r *gridReader) processKey() string {
	if r.raw["processes"] != nil {
		return "processes"
	}
	return "process"
}

// processes reads process or processes.
func (r *gridReader) processes() ([]string, error) {
	switch {
	case r.raw["process"] != nil && r.raw["processes"] != nil:
		return nil, r.bad("processes", "give process or processes, not both")
	case r.raw["process"] != nil:
		return r.list("process", r.raw["process"])
	case r.raw["processes"] != nil:
		return r.list("processes", r.raw["processes"])
	}
	return nil, r.noKey("no processes: set processes = [\"two-choice\", ...]")
}

// bins reads bins: {0} where a graph (its vertices), a hyperedge file or a
// file of initial loads fixes them and bins is left out.
func (r *gridReader) bins() ([]uint64, error) {
	fixed := false
	if p, ok := r.raw["params"].(map[string]any); ok {
		_, fixed = p["graph"]
		if h, ok := p["hyperedges"].(string); ok && strings.HasPrefix(h, "file:") {
			fixed = true
		}
		if h, ok := p["initial"].(string); ok && strings.HasPrefix(h, "file:") {
			fixed = true // n from the file (core/process/initial.go)
		}
	}
	if r.raw["bins"] == nil {
		if !fixed {
			return nil, r.noKey("no bins: set bins = [...]")
		}
		return []uint64{0}, nil
	}
	bins, err := r.counts("bins")
	if err != nil {
		return nil, err
	}
	for _, n := range bins {
		if n == 0 {
			return nil, r.bad("bins", "want at least 1 bin")
		}
	}
	return bins, nil
}

// balls reads balls or balls_per_bin; a supermarket run (as long as time or
// events) and one in phases (their total steps, core.Spec.checkDynamic)
// may leave both out.
func (r *gridReader) balls() (balls, perBin []uint64, err error) {
	switch {
	case r.raw["balls"] != nil && r.raw["balls_per_bin"] != nil:
		return nil, nil, r.bad("balls_per_bin", "give balls or balls_per_bin, not both")
	case r.raw["balls"] != nil:
		balls, err = r.counts("balls")
		return balls, nil, err
	case r.raw["balls_per_bin"] != nil:
		perBin, err = r.counts("balls_per_bin")
		return nil, perBin, err
	case r.raw["arrival_rate"] != nil, r.raw["phases"] != nil:
		return []uint64{0}, nil, nil
	}
	return nil, nil, r.noKey("no balls: set balls = [...] or balls_per_bin = [...]")
}

// common reads the settings every point shares: trials, seed, checkpoints,
// engine and alpha.
func (r *gridReader) common() (core.Common, error) {
	var com core.Common
	for _, s := range []struct {
		key, def string
		dst      *uint64
	}{{"trials", "1", nil}, {"seed", "1", &com.Seed}, {"checkpoints", "0", &com.Checkpoints}} {
		v, err := r.one(s.key, s.def)
		if err != nil {
			return com, err
		}
		var x uint64
		if s.key == "checkpoints" {
			x, com.CheckpointsLog, err = core.ParseCheckpoints(v)
		} else {
			x, err = units.ParseCount(v)
		}
		if err != nil {
			return com, r.bad(s.key, "%v", err)
		}
		if s.dst != nil {
			*s.dst = x
		} else {
			if why := core.TrialsRule(x); why != "" {
				return com, r.bad(s.key, "%s", why)
			}
			com.Trials = int(x)
		}
	}
	engine, err := r.one("engine", "auto")
	if err != nil {
		return com, err
	}
	com.Engine = core.Engine(engine)
	alpha, err := r.one("alpha", "1")
	if err != nil {
		return com, err
	}
	if com.Alpha, err = core.ParseAlpha(alpha); err != nil {
		return com, r.bad("alpha", "want a real number")
	}
	if why := core.AlphaRule(com.Alpha); why != "" {
		return com, r.bad("alpha", "%s", why)
	}
	return com, nil
}

// params reads the [params] table: each a value or a list; a relative
// file: path is taken from the sweep file's folder.
func (r *gridReader) params() (map[string][]string, error) {
	params := map[string][]string{}
	p, ok := r.raw["params"]
	if !ok {
		return params, nil
	}
	table, ok := p.(map[string]any)
	if !ok {
		return nil, r.bad("params", "want a table [params]")
	}
	for k, v := range table {
		key := "params." + k
		if process.FlagOf(k) == nil {
			return nil, r.bad(key, "not a process parameter")
		}
		vals, err := r.list(key, v)
		if err != nil {
			return nil, err
		}
		for i, val := range vals {
			vals[i] = besideFile(r.path, k, val)
		}
		params[k] = vals
	}
	return params, nil
}

// specError blames the key of the first flag a NewSpec error names.
func (r *gridReader) specError(o Origin, err error, perBin bool) error {
	key, at := "bins", len(err.Error())
	candidates := []string{"bins", "balls", "checkpoints", "engine", "alpha", "trials"}
	for k := range o.Combo {
		candidates = append(candidates, k)
	}
	for _, k := range candidates {
		if i := strings.Index(err.Error(), "--"+k+" "); i >= 0 && i < at {
			key, at = k, i
			if _, ok := o.Combo[k]; ok {
				key = "params." + k
			}
		}
	}
	if k := dynamicKey(err.Error()); k != "" {
		key = k
	}
	if (key == "balls" || strings.Contains(err.Error(), "--balls-per-bin")) && perBin {
		key = "balls_per_bin"
	}
	return r.bad(key, "%v", err)
}

// collide refuses two grid points with one hash: one experiment listed
// twice, under two spellings ("1e2" and 100, 2 and 2.0), like a value a
// command-line list repeats, naming the key whose values coincide.
func (r *gridReader) collide(a, b Origin, procs []string, perBin bool) error {
	twice := func(key, x, y string) error {
		return r.bad(key, "lists %s twice (%q and %q are one value)", y, x, y)
	}
	switch {
	case a.Proc != b.Proc:
		return r.bad(r.processKey(), "lists %s twice", procs[b.Proc])
	case a.Bin != b.Bin:
		return twice("bins", r.raws["bins"][a.Bin], r.raws["bins"][b.Bin])
	case a.Ball != b.Ball:
		key := "balls"
		if perBin {
			key = "balls_per_bin"
		}
		return twice(key, r.raws[key][a.Ball], r.raws[key][b.Ball])
	}
	for _, k := range dynamicKeys {
		if a.Dynamic[k] != b.Dynamic[k] {
			return twice(k, a.Dynamic[k], b.Dynamic[k])
		}
	}
	keys := slices.Sorted(maps.Keys(b.Combo))
	for k := range a.Combo {
		if _, ok := b.Combo[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if a.Combo[k] != b.Combo[k] {
			if a.Combo[k] == "" || b.Combo[k] == "" { // one leaves k at its default
				return r.bad("params."+k, "lists %s, which is the default of %s; leave it out or list another value", a.Combo[k]+b.Combo[k], procs[b.Proc])
			}
			return twice("params."+k, a.Combo[k], b.Combo[k])
		}
	}
	return r.bad(r.processKey(), "%s: two grid points are one experiment", procs[b.Proc])
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
