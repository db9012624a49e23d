package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
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
// Every process runs once per combination of bins, balls and the values of
// the parameters it takes. Unknown keys, empty lists and invalid values are
// errors naming the file, the line and the key.

// Grid is a parsed sweep file.
type Grid struct {
	Path   string
	Source string  // the file's text, for the manifest
	Specs  []*Spec // one per grid point, in file order
	Hashes []string
}

// gridKeys are the top-level keys of a sweep file.
var gridKeys = []string{"process", "processes", "bins", "balls", "balls_per_bin", "trials", "seed", "checkpoints", "engine", "alpha", "params"}

// keyLines maps "key" and "params.key" to the line they are set on.
func keyLines(text string) map[string]int {
	lines := map[string]int{}
	section := ""
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if j := strings.IndexByte(line, '#'); j >= 0 && !strings.Contains(line[:j], `"`) {
			line = strings.TrimSpace(line[:j])
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.Trim(line, "[] ")
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			key := strings.Trim(strings.TrimSpace(k), `"`)
			if section != "" {
				key = section + "." + key
			}
			if _, seen := lines[key]; !seen {
				lines[key] = i + 1
			}
		}
	}
	return lines
}

// ReadGrid parses and validates a sweep file.
func ReadGrid(path string) (*Grid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(data)
	var raw map[string]any
	if _, err := toml.Decode(text, &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	lines := keyLines(text)
	bad := func(key, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s: %s", path, lines[key], key, fmt.Sprintf(format, a...))
	}
	for k := range raw {
		if !slices.Contains(gridKeys, k) {
			return nil, bad(k, "not a sweep setting (known: %s)", strings.Join(gridKeys, ", "))
		}
	}
	// Values as strings, one or a list.
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
		var out []string
		for _, it := range items {
			switch y := it.(type) {
			case string:
				out = append(out, y)
			case int64:
				out = append(out, strconv.FormatInt(y, 10))
			case float64:
				if y == math.Trunc(y) && math.Abs(y) < 1e18 {
					out = append(out, strconv.FormatFloat(y, 'f', -1, 64))
				} else {
					out = append(out, strconv.FormatFloat(y, 'g', -1, 64))
				}
			case bool:
				out = append(out, strconv.FormatBool(y))
			default:
				return nil, bad(key, "unsupported value %v", it)
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
	counts := func(key string) ([]uint64, error) {
		vals, err := list(key, raw[key])
		if err != nil {
			return nil, err
		}
		var out []uint64
		for _, v := range vals {
			x, err := ParseCount(v)
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
		return nil, fmt.Errorf("%s: no processes: set processes = [\"two-choice\", ...]", path)
	}
	// A graph fixes the bins (its vertices), and so does a hyperedge file.
	fixed := false
	if p, ok := raw["params"].(map[string]any); ok {
		_, fixed = p["graph"]
		if h, ok := p["hyperedges"].(string); ok && strings.HasPrefix(h, "file:") {
			fixed = true
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
		return nil, fmt.Errorf("%s: no bins: set bins = [...]", path)
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
	default:
		return nil, fmt.Errorf("%s: no balls: set balls = [...] or balls_per_bin = [...]", path)
	}
	var com Common
	for _, s := range []struct {
		key, def string
		dst      *uint64
	}{{"trials", "1", nil}, {"seed", "1", &com.Seed}, {"checkpoints", "0", &com.Checkpoints}} {
		v, err := one(s.key, s.def)
		if err != nil {
			return nil, err
		}
		x, err := ParseCount(v)
		if err != nil {
			return nil, bad(s.key, "%v", err)
		}
		if s.dst != nil {
			*s.dst = x
		} else {
			if x < 1 || x > 1<<31 {
				return nil, bad(s.key, "want 1 to 2^31 trials")
			}
			com.Trials = int(x)
		}
	}
	engine, err := one("engine", "auto")
	if err != nil {
		return nil, err
	}
	com.Engine = Engine(engine)
	alpha, err := one("alpha", "1")
	if err != nil {
		return nil, err
	}
	if com.Alpha, err = strconv.ParseFloat(alpha, 64); err != nil {
		return nil, bad("alpha", "want a real number")
	}

	params := map[string][]string{}
	if p, ok := raw["params"]; ok {
		table, ok := p.(map[string]any)
		if !ok {
			return nil, bad("params", "want a table [params]")
		}
		for k, v := range table {
			key := "params." + k
			if paramDef(k) == nil {
				return nil, bad(key, "not a process parameter")
			}
			vals, err := list(key, v)
			if err != nil {
				return nil, err
			}
			params[k] = vals
		}
	}

	g := &Grid{Path: path, Source: text}
	used := map[string]bool{}
	for _, name := range procs {
		proc, err := LookupProcess(name)
		if err != nil {
			return nil, bad(map[bool]string{true: "processes", false: "process"}[raw["processes"] != nil], "%v", err)
		}
		combos, kept := proc.Combos(params)
		for k := range kept {
			used[k] = true
		}
		for _, n := range bins {
			ms, per := balls, perBin
			if perBin != nil {
				ms = make([]uint64, len(perBin)) // Balls = 0: NewSpec multiplies
			}
			for mi, m := range ms {
				for _, combo := range combos {
					c := com
					c.Bins, c.Balls = n, m
					if per != nil {
						c.BallsPerBin = per[mi]
					}
					s, err := NewSpec(name, combo, c)
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
						if (key == "balls" || strings.Contains(err.Error(), "--balls-per-bin")) && perBin != nil {
							key = "balls_per_bin"
						}
						return nil, bad(key, "%v", err)
					}
					g.Specs = append(g.Specs, s)
					g.Hashes = append(g.Hashes, s.Hash())
				}
			}
		}
	}
	for k := range params {
		if !used[k] {
			if msg := UnusedParamError(k, procs); strings.Contains(msg, " only") || strings.Contains(msg, " or more") {
				return nil, bad("params."+k, "%s", msg)
			}
			return nil, bad("params."+k, "applies to none of %s", strings.Join(procs, ", "))
		}
	}
	return g, nil
}

func mul64(a, b uint64) (uint64, uint64) {
	if a == 0 || b == 0 {
		return 0, 0
	}
	p := a * b
	if p/b != a {
		return 1, p
	}
	return 0, p
}

// paramCombos is every assignment of one value to each key.
func paramCombos(keys []string, values map[string][]string) []map[string]string {
	out := []map[string]string{{}}
	for _, k := range keys {
		var next []map[string]string
		for _, partial := range out {
			for _, v := range values[k] {
				c := map[string]string{}
				for kk, vv := range partial {
					c[kk] = vv
				}
				c[k] = v
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// Hash identifies a grid point: a digest of everything that decides its
// trials' results (process, parameters, n, m, seed, checkpoints, resolved
// engine, α), not of the number of trials, so a sweep can grow.
func (s *Spec) Hash() string {
	keys := make([]string, 0)
	pm := s.ParamsMap()
	for k := range pm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, pm[k]))
	}
	if s.Params.Ages != nil {
		b, _ := json.Marshal(s.Params.Ages)
		parts = append(parts, "ages="+string(b))
	}
	if s.Params.Replay != nil {
		parts = append(parts, "replay="+replayDigest(s.Params.Replay))
	}
	desc := fmt.Sprintf("balloc/1 %s {%s} n=%d m=%d seed=%d cp=%d engine=%s alpha=%v",
		s.Process.Name, strings.Join(parts, " "), s.Bins, s.Balls, s.Seed, s.Checkpoints, s.engine, s.Alpha)
	sum := sha256.Sum256([]byte(desc))
	return hex.EncodeToString(sum[:8])
}
