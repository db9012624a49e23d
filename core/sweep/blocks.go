package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// A sweep file may hold [[grid]] blocks, for an experiment that is not one
// product grid (each process to its own m, some rows with more trials):
//
//	processes   = ["graphical"]          # top-level keys: defaults for every block
//	checkpoints = "log:100"
//	[[grid]]
//	balls_per_bin = [131072]
//	trials        = 6
//	params        = { strategy = ["greedy"], graph = ["cycle:1024"] }
//	[[grid]]
//	balls_per_bin = [65536]
//	params        = { strategy = ["haar"], graph = ["cycle:1024"] }
//
// Each block is a grid of its own, taking every key a file without blocks
// takes. A key the block sets replaces the top level's, and so does its
// other spelling (process for processes, balls for balls_per_bin, events
// for time, one update_* key for another, phases for delete_prob: see
// alternatives); params merge key by key, a block's parameter replacing the
// top level's of that name. With blocks the top level alone is no grid;
// an empty block is the top level's grid once. The points are the blocks'
// points in file order, each with its block's trials; a point (a spec
// hash) made by two blocks is refused. A point's hash is its spec's, so a
// point moved from the top level into a block keeps its hash and its
// results.

// gridBlock is one [[grid]] block: its raw keys and where it is written.
type gridBlock struct {
	line  int            // the [[grid]] line
	lines map[string]int // "trials", "params.g", "params" (an inline table): the line each is set on
	raw   map[string]any
}

// sets reports whether the block itself sets key ("trials", "params.g").
func (b *gridBlock) sets(key string) bool {
	if k, ok := strings.CutPrefix(key, "params."); ok {
		p, _ := b.raw["params"].(map[string]any)
		_, set := p[k]
		return set
	}
	_, set := b.raw[key]
	return set
}

// alternatives are keys that say one thing two ways: a block setting one of
// a group drops the others the top level sets (a block's balls replaces
// the top level's balls_per_bin), rather than being refused for both.
var alternatives = [][]string{
	{"process", "processes"},
	{"balls", "balls_per_bin"},
	{"time", "events"},
	{"update_period", "update_delay", "update_individual"},
	{"phases", "delete_prob"},
}

// blockLines scans a sweep file's text as keyLines does, for its [[grid]]
// blocks, in file order, and the line of a [grid] table (0 if none).
func blockLines(text string) (blocks []gridBlock, table int) {
	section := ""
	tomlLines(text, func(no int, line string) {
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			array := strings.HasPrefix(line, "[[") && strings.HasSuffix(line, "]]")
			section = strings.Trim(line, "[] ")
			switch {
			case array && section == "grid":
				blocks = append(blocks, gridBlock{line: no, lines: map[string]int{}})
			case !array && (section == "grid" || strings.HasPrefix(section, "grid.")) && len(blocks) == 0 && table == 0:
				table = no
			case strings.HasPrefix(section, "grid.") && len(blocks) > 0: // [grid.params], [[grid.x]]: the table's line
				if m, k := blocks[len(blocks)-1].lines, strings.TrimPrefix(section, "grid."); m[k] == 0 {
					m[k] = no
				}
			}
			return
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok || len(blocks) == 0 {
			return
		}
		key := strings.Trim(strings.TrimSpace(k), `"`)
		switch {
		case section == "grid":
		case strings.HasPrefix(section, "grid."):
			key = strings.TrimPrefix(section, "grid.") + "." + key
		default:
			return
		}
		if m := blocks[len(blocks)-1].lines; m[key] == 0 {
			m[key] = no
		}
	})
	return blocks, table
}

// readBlocks makes the grid points of a file with [[grid]] blocks: raw is
// the decoded file, lines keyLines of its text.
func readBlocks(path string, src *source, raw map[string]any, lines map[string]int) (*Grid, error) {
	text := src.text
	blocks, table := blockLines(text)
	decoded, isArray := raw["grid"].([]map[string]any)
	switch {
	case lines["grid"] > 0 || !isArray && !isTable(raw["grid"]):
		return nil, fmt.Errorf("%s:%d: grid: give each block of the sweep as a [[grid]] section (two brackets), not a grid key", path, lines["grid"])
	case !isArray:
		return nil, fmt.Errorf("%s:%d: grid: a [grid] table; write [[grid]] (two brackets), once per block of the sweep", path, table)
	}
	if len(blocks) != len(decoded) { // a layout the line scan does not follow
		blocks = make([]gridBlock, len(decoded))
	}
	for k := range raw {
		if k != "grid" && !slices.Contains(gridKeys, k) {
			return nil, fmt.Errorf("%s:%d: %s: not a sweep setting (known: %s, and [[grid]] blocks)", path, lines[k], k, strings.Join(gridKeys, ", "))
		}
	}
	top := maps.Clone(raw)
	delete(top, "grid")
	topParams, _ := top["params"].(map[string]any)
	// The line a message names for a top-level key; a parameter of an
	// inline table is on its table's line.
	topAt := maps.Clone(lines)
	for k := range topParams {
		if topAt["params."+k] == 0 {
			topAt["params."+k] = lines["params"]
		}
	}

	g := &Grid{Path: path, Source: text}
	mem := units.MemoryLimit()
	byHash := map[string]int{}     // the line of the block each point is in
	inherited := map[string]bool{} // top-level params some block leaves to the top
	usedTop := map[string]bool{}   // ... and that such a block used
	var inheritors []string        // the processes of those blocks
	for bi := range decoded {
		blk := &blocks[bi]
		blk.raw = decoded[bi]
		m, lit, at := blockKeys(blk, top, lines, topAt)
		if err := checkGridSize(fmt.Sprintf("%s:%d: [[grid]]", path, blk.line), "the blocks' lists make", units.Add(uint64(len(g.Specs)), gridSize(m)), mem); err != nil {
			return nil, err
		}
		pts, err := readPoints(path, src, m, lit, at, blk)
		if err != nil {
			return nil, err
		}
		inherits := false
		for k := range topParams {
			if !blk.sets("params." + k) {
				inherited[k], inherits = true, true
				usedTop[k] = usedTop[k] || pts.used[k]
			}
		}
		if inherits {
			for _, p := range pts.procs {
				if !slices.Contains(inheritors, p) {
					inheritors = append(inheritors, p)
				}
			}
		}
		if err := oncePerFile(path, blk.line, pts, byHash); err != nil {
			return nil, err
		}
		g.Specs = append(g.Specs, pts.specs...)
		g.Hashes = append(g.Hashes, pts.hashes...)
	}
	if err := checkInherited(path, topAt, inherited, usedTop, inheritors); err != nil {
		return nil, err
	}
	return g, nil
}

// oncePerFile refuses a point of the block of line line that an earlier
// block has too (byHash: the line of the block each point is in).
func oncePerFile(path string, line int, pts *points, byHash map[string]int) error {
	for i, h := range pts.hashes {
		if prev, ok := byHash[h]; ok {
			s := pts.specs[i]
			what := s.Process.Name
			if p := s.ParamsText(); p != "" {
				what += " " + p
			}
			return fmt.Errorf("%s:%d: [[grid]]: its grid point %s n=%d m=%d (spec %s) is also a point of the [[grid]] block of line %d; a point runs once: list it in one block",
				path, line, what, s.Bins, s.Balls, h, prev)
		}
		byHash[h] = line
	}
	return nil
}

// blockKeys are a [[grid]] block's keys over the top level's: m the keys
// (a key of the block replaces the top level's and its alternatives, its
// params join the top level's), lit the line of each key's literal, at the
// line a message names for it.
func blockKeys(blk *gridBlock, top map[string]any, lines, topAt map[string]int) (m map[string]any, lit, at map[string]int) {
	topParams, _ := top["params"].(map[string]any)
	m, lit, at = maps.Clone(top), maps.Clone(lines), maps.Clone(topAt)
	for k := range blk.raw {
		for _, group := range alternatives {
			if slices.Contains(group, k) {
				for _, alt := range group {
					delete(m, alt)
				}
			}
		}
	}
	for k, v := range blk.raw {
		if k != "params" {
			m[k] = v
			lit[k], at[k] = blk.lines[k], blk.lines[k]
		}
	}
	if bp, ok := blk.raw["params"]; ok {
		bt, isMap := bp.(map[string]any)
		switch _, topSet := top["params"]; {
		case topSet && topParams == nil: // not a table: readPoints refuses it at its line
		case !isMap:
			m["params"], lit["params"], at["params"] = bp, blk.lines["params"], blk.lines["params"]
		default:
			merged := maps.Clone(topParams)
			if merged == nil {
				merged = map[string]any{}
			}
			for k, v := range bt {
				merged[k] = v
				line := blk.lines["params."+k]
				lit["params."+k] = line // 0: its literal is unknown, and never the top level's
				if line == 0 {
					line = blk.lines["params"]
				}
				at["params."+k] = line
			}
			m["params"] = merged
		}
	}
	return m, lit, at
}

// checkInherited refuses a top-level parameter that the blocks leaving it
// to the top level never use.
func checkInherited(path string, topAt map[string]int, inherited, usedTop map[string]bool, inheritors []string) error {
	for _, k := range slices.Sorted(maps.Keys(inherited)) {
		if usedTop[k] {
			continue
		}
		at := topAt["params."+k]
		if msg := process.UnusedParamError(k, inheritors); strings.Contains(msg, " only") || strings.Contains(msg, " or more") {
			return fmt.Errorf("%s:%d: params.%s: %s", path, at, k, msg)
		}
		return fmt.Errorf("%s:%d: params.%s: applies to none of %s (the processes of the blocks that leave it to the top level)", path, at, k, strings.Join(inheritors, ", "))
	}
	return nil
}

// isTable reports whether v is a TOML table.
func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}
