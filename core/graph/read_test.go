package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/balloc/balloc/core/units"
)

// writeTemp writes content to a file named name in a fresh directory and
// returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pairs turns an edge array into its pairs, for readable failures.
func pairs(edges []uint32) [][2]uint32 {
	var p [][2]uint32
	for k := 0; k+1 < len(edges); k += 2 {
		p = append(p, [2]uint32{edges[k], edges[k+1]})
	}
	return p
}

const mmHead = "%%MatrixMarket matrix coordinate "

func TestReadGraphFile(t *testing.T) {
	for _, c := range []struct {
		name, content string
		clean         Clean
		n             uint64
		edges         [][2]uint32
		origin        string // a substring of Origin
	}{
		{"edge list with comments and extra columns",
			"# FromNodeId\tToNodeId\n% another comment\n\n10 20 0.5 1234\n20\t30\r\n  30   10  \n",
			CleanRefuse, 3, [][2]uint32{{0, 1}, {1, 2}, {2, 0}}, "edge list "},
		{"relabelled in increasing id order, not first appearance",
			"7 3\n3 1\n1 7", CleanRefuse, 3, [][2]uint32{{2, 1}, {1, 0}, {0, 2}}, "3 edge lines, 3 vertices"},
		{"sparse 64-bit ids",
			"18446744073709551615 5\n5 1000000000000\n", CleanRefuse, 3, [][2]uint32{{2, 0}, {0, 1}}, "ids relabelled 0..2"},
		{"leading zeros and a byte-order mark",
			"\xef\xbb\xbf007 08\n", CleanRefuse, 2, [][2]uint32{{0, 1}}, ""},
		{"windows line ends", "1 2\r\n2 3\r\n", CleanRefuse, 3, [][2]uint32{{0, 1}, {1, 2}}, ""},
		{"self-loops and duplicates dropped, first copy kept",
			"1 2\n2 1\n1 1\n3 2\n1 2\n3 3\n2 3\n", CleanDrop, 3, [][2]uint32{{0, 1}, {2, 1}},
			"; dropped 2 self-loops and 3 duplicate edges"},
		{"a vertex only in a dropped self-loop stays, isolated",
			"1 2\n5 5\n", CleanDrop, 3, [][2]uint32{{0, 1}}, "dropped 1 self-loop and 0 duplicate edges"},
		{"MM symmetric real",
			mmHead + "real symmetric\n% a comment\n%\n4 4 3\n2 1 1.5\n3 1 -2e3\n4 3 0\n",
			CleanRefuse, 4, [][2]uint32{{1, 0}, {2, 0}, {3, 2}}, "Matrix Market coordinate real symmetric file"},
		{"MM general pattern lists both orientations",
			mmHead + "pattern general\n3 3 4\n1 2\n2 1\n2 3\n3 2\n",
			CleanDrop, 3, [][2]uint32{{0, 1}, {1, 2}}, "4 entries, 3 vertices (vertex i is bin i−1), 2 edges; dropped 0 self-loops and 2 duplicate edges"},
		{"MM integer keeps isolated vertices",
			mmHead + "integer general\n6 6 2\n1 6 3\n6 2 -1\n",
			CleanRefuse, 6, [][2]uint32{{0, 5}, {5, 1}}, ""},
		{"MM header words in any case, tabs, blank lines",
			"%%MatrixMarket MATRIX Coordinate Pattern Symmetric\n\n3\t3\t1\n\n3\t1\n",
			CleanRefuse, 3, [][2]uint32{{2, 0}}, "pattern symmetric"},
		{"MM diagonal entries are self-loops",
			mmHead + "real symmetric\n3 3 4\n1 1 2\n2 1 -1\n2 2 2\n3 2 -1\n",
			CleanDrop, 3, [][2]uint32{{1, 0}, {2, 1}}, "dropped 2 self-loops"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "g.txt", c.content)
			g, err := ReadGraphFile("file:"+path, path, c.clean)
			if err != nil {
				t.Fatal(err)
			}
			if g.N != c.n || g.E != uint64(len(c.edges)) || g.Family != Explicit || g.Spec != "file:"+path {
				t.Errorf("N, E, family, spec = %d, %d, %d, %q; want %d, %d", g.N, g.E, g.Family, g.Spec, c.n, len(c.edges))
			}
			if got := pairs(g.Edges); !slices.Equal(got, c.edges) {
				t.Errorf("edges %v, want %v", got, c.edges)
			}
			if !strings.Contains(g.Origin, c.origin) || !strings.Contains(g.Origin, path) {
				t.Errorf("origin %q, want it to name the file and contain %q", g.Origin, c.origin)
			}
			checkGraph(t, g)
		})
	}
}

func TestReadGraphFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		clean         Clean
		err           string // a substring; P stands for the file's path
	}{
		{"one id", "1 2\n12\n", CleanRefuse, `P:2: want two vertex ids, got "12"`},
		{"not a number", "1 2\n\nabc 3\n", CleanRefuse, `P:3: "abc" is not a vertex id`},
		{"negative", "-1 2\n", CleanRefuse, `P:1: "-1" is not a vertex id`},
		{"comma separated", "1,2 3\n", CleanRefuse, `P:1: "1,2" is not a vertex id`},
		{"second id bad", "1 2x\n", CleanRefuse, `P:1: "2x" is not a vertex id`},
		{"too large", "1 18446744073709551616\n", CleanRefuse, "P:1: vertex id 18446744073709551616 is more than 2^64−1"},
		{"empty file", "", CleanRefuse, "P has no edges"},
		{"only comments", "# nodes: 0\n\n% x\n", CleanDrop, "P has no edges"},
		{"refused", "1 1\n1 2\n2 1\n3 3\n", CleanRefuse,
			"P has 2 self-loops and 1 duplicate edge; --graph-clean drop drops them"},
		{"nothing left", "1 1\n2 2\n", CleanDrop, "P has no edges left after dropping 2 self-loops and 0 duplicate edges"},
		{"MM complex", mmHead + "complex general\n2 2 1\n1 2 1 0\n", CleanRefuse, `P:1: Matrix Market field "complex": want real, integer or pattern`},
		{"MM array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", CleanRefuse, "P:1: a Matrix Market array (dense) file is not a graph"},
		{"MM skew", mmHead + "real skew-symmetric\n2 2 1\n2 1 1\n", CleanRefuse, `P:1: Matrix Market symmetry "skew-symmetric": want general or symmetric`},
		{"MM hermitian", mmHead + "pattern hermitian\n2 2 1\n2 1\n", CleanRefuse, `symmetry "hermitian"`},
		{"MM vector", "%%MatrixMarket vector coordinate real general\n", CleanRefuse, `P:1: Matrix Market object "vector"`},
		{"MM short banner", "%%MatrixMarket matrix coordinate\n", CleanRefuse, `P:1: want "%%MatrixMarket matrix coordinate <field> <symmetry>"`},
		{"MM no size line", mmHead + "real general\n% only comments\n", CleanRefuse, "P:2: no size line"},
		{"MM bad size line", mmHead + "real general\n3 3\n", CleanRefuse, `P:2: want a size line "rows cols entries", got "3 3"`},
		{"MM not square", mmHead + "real general\n3 4 1\n1 2 1\n", CleanRefuse, "P:2: the matrix is 3×4"},
		{"MM zero entries", mmHead + "pattern general\n3 3 0\n", CleanRefuse, "P:2: the size line says 0 entries"},
		{"MM too many entries", mmHead + "pattern general\n2 2 1\n1 2\n2 1\n", CleanDrop, "P:4: more entries than the 1 the size line says"},
		{"MM too few entries", mmHead + "pattern general\n3 3 2\n1 2\n", CleanRefuse, "P:3: the file ends after 1 of the 2 entries"},
		{"MM id zero", mmHead + "pattern general\n3 3 1\n0 1\n", CleanRefuse, "P:3: entry (0, 1) is outside 1..3"},
		{"MM id past n", mmHead + "pattern symmetric\n3 3 1\n4 1\n", CleanRefuse, "P:3: entry (4, 1) is outside 1..3"},
		{"MM one id", mmHead + "pattern symmetric\n3 3 1\n2\n", CleanRefuse, `P:3: want two vertex ids, got "2"`},
		{"MM both orientations refused", mmHead + "pattern general\n2 2 2\n1 2\n2 1\n", CleanRefuse,
			"P has 0 self-loops and 1 duplicate edge (a general matrix often lists an edge as both (i,j) and (j,i)); --graph-clean drop drops them"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "g.txt", c.content)
			spec := "file:" + path
			_, err := ReadGraphFile(spec, path, c.clean)
			want := strings.ReplaceAll(c.err, "P", path)
			if err == nil || !strings.HasPrefix(err.Error(), "--graph "+spec+": ") || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want --graph %s: ...%s", err, spec, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "none.txt")
		_, err := ReadGraphFile("file:"+path, path, CleanRefuse)
		if err == nil || !strings.Contains(err.Error(), "open "+path+": no such file or directory") {
			t.Fatalf("error %v, want the OS error naming %s", err, path)
		}
	})
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := ReadGraphFile("file:"+dir, dir, CleanRefuse); err == nil || !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %v, want one naming %s", err, dir)
		}
	})
}

// TestReadGraphParse checks that --graph file:PATH reaches the reader.
func TestReadGraphParse(t *testing.T) {
	path := writeTemp(t, "g.txt", "1 2\n2 3\n")
	g, err := Parse("file:"+path, Options{})
	if err != nil || g.N != 3 || g.E != 2 {
		t.Fatalf("Parse: %v, %+v", err, g)
	}
}

// checkGraph checks what any graph a reader returns must satisfy: edges in
// range, none repeated and no self-loops, and a CSR that agrees.
func checkGraph(t testing.TB, g *Graph) {
	t.Helper()
	if g.E != uint64(len(g.Edges)/2) || len(g.Edges)%2 != 0 || g.E == 0 {
		t.Fatalf("E = %d with %d endpoints", g.E, len(g.Edges))
	}
	seen := make(map[[2]uint32]bool)
	for k := 0; k < len(g.Edges); k += 2 {
		u, v := g.Edges[k], g.Edges[k+1]
		if uint64(u) >= g.N || uint64(v) >= g.N {
			t.Fatalf("edge %d = (%d, %d) with N = %d", k/2, u, v, g.N)
		}
		if u == v {
			t.Fatalf("self-loop (%d, %d)", u, v)
		}
		key := [2]uint32{min(u, v), max(u, v)}
		if seen[key] {
			t.Fatalf("edge {%d, %d} twice", u, v)
		}
		seen[key] = true
	}
	if uint64(len(g.Offsets)) != g.N+1 || g.Offsets[g.N] != 2*g.E {
		t.Fatalf("CSR: %d offsets ending at %d for N = %d, E = %d", len(g.Offsets), g.Offsets[len(g.Offsets)-1], g.N, g.E)
	}
}

func TestReadHyperFile(t *testing.T) {
	for _, c := range []struct {
		name, content string
		n             uint64 // --bins
		clean         Clean
		wantN, k      uint64
		edges         [][]uint32
		origin        string
	}{
		{"sizes vary, n from the largest bin", "# hyperedges\n0 1 2\n\n% x\n5\t3\r\n4 0 2 1\n", 0, CleanRefuse,
			6, 0, [][]uint32{{0, 1, 2}, {5, 3}, {4, 0, 2, 1}}, "3 hyperedges of sizes 2..4 over 6 bins (the largest bin + 1)"},
		{"common size sets K", "1 2\n3 4\n0 9\n", 10, CleanRefuse,
			10, 2, [][]uint32{{1, 2}, {3, 4}, {0, 9}}, "3 hyperedges of size 2 over 10 bins (--bins)"},
		{"repeats dropped, first kept", "3 1 3 2 1\n7 7\n", 0, CleanDrop,
			8, 0, [][]uint32{{3, 1, 2}, {7}}, "; dropped 3 repeated bins"},
		{"repeats dropped to a common size", "3 3 1\n2 1\n", 0, CleanDrop,
			4, 2, [][]uint32{{3, 1}, {2, 1}}, "dropped 1 repeated bin"},
		{"largest bin", "4294967294 0\n", 0, CleanRefuse, MaxVertices, 2, [][]uint32{{4294967294, 0}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "h.txt", c.content)
			h, err := ReadHyperFile("file:"+path, path, c.n, c.clean)
			if err != nil {
				t.Fatal(err)
			}
			if h.N != c.wantN || h.K != c.k || h.S != uint64(len(c.edges)) || h.Family != HExplicit || h.Spec != "file:"+path {
				t.Errorf("N, K, S, family, spec = %d, %d, %d, %d, %q; want %d, %d, %d", h.N, h.K, h.S, h.Family, h.Spec, c.wantN, c.k, len(c.edges))
			}
			var got [][]uint32
			var buf []uint64
			for e := range h.S {
				buf = h.Edge(buf[:0], e)
				var edge []uint32
				for _, b := range buf {
					edge = append(edge, uint32(b))
				}
				got = append(got, edge)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.edges) {
				t.Errorf("hyperedges %v, want %v", got, c.edges)
			}
			if !strings.Contains(h.Origin, c.origin) || !strings.Contains(h.Origin, path) {
				t.Errorf("origin %q, want it to name the file and contain %q", h.Origin, c.origin)
			}
			checkHyper(t, h, true)
		})
	}
}

func TestReadHyperFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		n             uint64
		clean         Clean
		err           string
	}{
		{"empty", "", 0, CleanRefuse, "P has no hyperedges"},
		{"only comments", "# x\n\n", 5, CleanDrop, "P has no hyperedges"},
		{"not a bin", "1 2\n3 x4\n", 0, CleanRefuse, `P:2: "x4" is not a bin id`},
		{"a trailing word", "1 2\n0 9 extra\n", 10, CleanRefuse, `P:2: "extra" is not a bin id`},
		{"out of range", "1 2\n3 10\n", 10, CleanRefuse, "P:2: bin 10 is out of range: --bins is 10"},
		{"past 32 bits", "4294967295\n", 0, CleanRefuse, "P:1: bin 4294967295 is more than 4294967294"},
		{"too many bins", "1\n", 1 << 32, CleanRefuse, "--bins 4294967296 is more than 4294967295"},
		{"repeat refused", "1 2\n\n3 4 3\n", 0, CleanRefuse, "P:3: bin 3 appears more than once in the hyperedge; --graph-clean drop drops the repeats"},
		{"huge", "1 99999999999999999999\n", 0, CleanRefuse, "P:1: bin id 99999999999999999999 is more than 2^64−1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "h.txt", c.content)
			spec := "file:" + path
			_, err := ReadHyperFile(spec, path, c.n, c.clean)
			want := strings.ReplaceAll(c.err, "P", path)
			if err == nil || !strings.HasPrefix(err.Error(), "--hyperedges "+spec+": ") || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v, want --hyperedges %s: ...%s", err, spec, want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "none.txt")
	if _, err := ReadHyperFile("file:"+path, path, 0, CleanRefuse); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("missing file: error %v", err)
	}
	if _, err := ParseHyper("file:"+path, 0, Options{}); err == nil {
		t.Fatal("ParseHyper of a missing file: no error")
	}
}

// checkHyper checks the invariants of a hypergraph a reader returns.
func checkHyper(t testing.TB, h *Hypergraph, distinct bool) {
	t.Helper()
	if h.S == 0 || uint64(len(h.Offsets)) != h.S+1 || h.Offsets[0] != 0 || h.Offsets[h.S] != uint64(len(h.Members)) {
		t.Fatalf("S = %d with %d offsets over %d members", h.S, len(h.Offsets), len(h.Members))
	}
	sizes := map[uint64]bool{}
	for e := range h.S {
		lo, hi := h.Offsets[e], h.Offsets[e+1]
		if hi <= lo {
			t.Fatalf("hyperedge %d is empty", e)
		}
		sizes[hi-lo] = true
		edge := slices.Clone(h.Members[lo:hi])
		slices.Sort(edge)
		if distinct && len(slices.Compact(edge)) != int(hi-lo) {
			t.Fatalf("hyperedge %d repeats a bin: %v", e, h.Members[lo:hi])
		}
		if uint64(edge[len(edge)-1]) >= h.N {
			t.Fatalf("hyperedge %d has bin %d with N = %d", e, edge[len(edge)-1], h.N)
		}
		if h.Size(e) != hi-lo {
			t.Fatalf("Size(%d) = %d, want %d", e, h.Size(e), hi-lo)
		}
	}
	if wantK := uint64(0); len(sizes) == 1 {
		for k := range sizes {
			wantK = k
		}
		if h.K != wantK {
			t.Fatalf("K = %d, want %d", h.K, wantK)
		}
	} else if h.K != 0 {
		t.Fatalf("K = %d with sizes varying", h.K)
	}
}

// refSpace is the reader's field separators, for the reference readers.
func refSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f' }

// refLines splits a file into fields a line, the slow obvious way.
func refLines(data []byte) [][][]byte {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var lines [][][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		lines = append(lines, bytes.FieldsFunc(line, refSpace))
	}
	return lines
}

// refReadGraph is the slow obvious reader the fast one must agree with:
// maps, sorting and strconv.
func refReadGraph(data []byte, clean Clean, maxN uint64) (n uint64, edges []uint32, ok bool) {
	lines := refLines(data)
	var raw []uint64
	mm := len(lines) > 0 && bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("%%MatrixMarket"))
	if !mm {
		for _, f := range lines {
			if len(f) == 0 || f[0][0] == '#' || f[0][0] == '%' {
				continue
			}
			if len(f) < 2 {
				return 0, nil, false
			}
			for _, s := range f[:2] {
				x, err := strconv.ParseUint(string(s), 10, 64)
				if err != nil {
					return 0, nil, false
				}
				raw = append(raw, x)
			}
		}
		ids := slices.Compact(slices.Sorted(slices.Values(raw)))
		if len(ids) == 0 || uint64(len(ids)) > maxN {
			return 0, nil, false
		}
		rank := map[uint64]uint32{}
		for i, id := range ids {
			rank[id] = uint32(i)
		}
		for _, x := range raw {
			edges = append(edges, rank[x])
		}
		n = uint64(len(ids))
	} else {
		h := lines[0]
		lower := func(b []byte) string { return strings.ToLower(string(b)) }
		if len(h) != 5 || string(h[0]) != "%%MatrixMarket" || lower(h[1]) != "matrix" || lower(h[2]) != "coordinate" ||
			!slices.Contains([]string{"real", "integer", "pattern"}, lower(h[3])) ||
			!slices.Contains([]string{"general", "symmetric"}, lower(h[4])) {
			return 0, nil, false
		}
		var size []uint64
		var count uint64
		for _, f := range lines[1:] {
			if len(f) == 0 || f[0][0] == '%' {
				continue
			}
			if size == nil {
				if len(f) != 3 {
					return 0, nil, false
				}
				for _, s := range f {
					x, err := strconv.ParseUint(string(s), 10, 64)
					if err != nil {
						return 0, nil, false
					}
					size = append(size, x)
				}
				if size[0] != size[1] || size[0] == 0 || size[0] > maxN || size[2] == 0 {
					return 0, nil, false
				}
				continue
			}
			if len(f) < 2 || count == size[2] {
				return 0, nil, false
			}
			for _, s := range f[:2] {
				x, err := strconv.ParseUint(string(s), 10, 64)
				if err != nil || x < 1 || x > size[0] {
					return 0, nil, false
				}
				edges = append(edges, uint32(x-1))
			}
			count++
		}
		if size == nil || count != size[2] {
			return 0, nil, false
		}
		n = size[0]
	}
	var kept []uint32
	seen := map[[2]uint32]bool{}
	for k := 0; k < len(edges); k += 2 {
		u, v := edges[k], edges[k+1]
		key := [2]uint32{min(u, v), max(u, v)}
		if u == v || seen[key] {
			if clean == CleanRefuse {
				return 0, nil, false
			}
			continue
		}
		seen[key] = true
		kept = append(kept, u, v)
	}
	return n, kept, len(kept) > 0
}

// refReadHyper is the slow obvious hyperedge reader.
func refReadHyper(data []byte, n uint64, clean Clean) (members []uint32, offsets []uint64, bins uint64, ok bool) {
	if n > MaxVertices {
		return nil, nil, 0, false
	}
	limit := n
	if n == 0 {
		limit = MaxVertices
	}
	offsets = []uint64{0}
	var top uint64
	for _, f := range refLines(data) {
		if len(f) == 0 || f[0][0] == '#' || f[0][0] == '%' {
			continue
		}
		seen := map[uint64]bool{}
		for _, s := range f {
			x, err := strconv.ParseUint(string(s), 10, 64)
			if err != nil || x >= limit {
				return nil, nil, 0, false
			}
			if seen[x] {
				if clean == CleanRefuse {
					return nil, nil, 0, false
				}
				continue
			}
			seen[x] = true
			members = append(members, uint32(x))
			top = max(top, x)
		}
		offsets = append(offsets, uint64(len(members)))
	}
	if len(offsets) == 1 {
		return nil, nil, 0, false
	}
	if n == 0 {
		n = top + 1
	}
	return members, offsets, n, true
}

// TestReadGraphAgainstReference compares the reader with the slow one on
// random edge lists and Matrix Market files, in both relabelling modes
// (small ids: the dense table; huge ids: the hash table) and with tiny
// buffers, so that lines straddle refills.
func TestReadGraphAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		var b strings.Builder
		mm := trial%3 == 2
		nv := 1 + rng.IntN(50)
		lines := 1 + rng.IntN(200)
		scale := []uint64{1, 1000, 1 << 40, 1 << 60}[rng.IntN(4)]
		if mm {
			fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate pattern %s\n%% c\n%d %d %d\n", []string{"general", "symmetric"}[rng.IntN(2)], nv, nv, lines)
		}
		for range lines {
			u, v := uint64(rng.IntN(nv)), uint64(rng.IntN(nv))
			if mm {
				fmt.Fprintf(&b, "%d %d\n", u+1, v+1)
			} else {
				fmt.Fprintf(&b, "%d\t%d %d\n", u*scale+7, v*scale+7, rng.IntN(9))
			}
		}
		data := []byte(b.String())
		for _, clean := range []Clean{CleanRefuse, CleanDrop} {
			for _, bufSize := range []int{1, 7, 64, bufFor(int64(len(data)))} {
				edges, n, _, err := readGraph(bytes.NewReader(data), int64(len(data)), "r.txt", clean, MaxVertices, bufSize)
				rn, redges, rok := refReadGraph(data, clean, MaxVertices)
				if (err == nil) != rok || err == nil && (n != rn || !slices.Equal(edges, redges)) {
					t.Fatalf("trial %d, clean %d, buffer %d: got %d %v %v, reference %d %v %v\n%s", trial, clean, bufSize, n, pairs(edges), err, rn, pairs(redges), rok, data)
				}
			}
		}
	}
}

// TestLabelerModes relabels the same ids through the dense table and the
// hash table (forced by a tiny dense limit, and switching midway).
func TestLabelerModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]uint64, 100000)
	for i := range ids {
		ids[i] = uint64(rng.IntN(30000))
	}
	var want []uint32
	for _, denseMax := range []uint64{1 << 20, 0, 20000} {
		l := &labeler{maxN: MaxVertices, denseMax: denseMax}
		var got []uint32
		for rest := ids; len(rest) > 0; {
			k := min(len(rest), 1+rng.IntN(3000))
			var ok bool
			if got, ok = l.labels(got, rest[:k]); !ok {
				t.Fatal("labels refused")
			}
			rest = rest[k:]
		}
		perm := l.order()
		for i := range got {
			got[i] = perm[got[i]]
		}
		if want == nil {
			want = got
			sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
			for i, id := range ids {
				if r, _ := slices.BinarySearch(sorted, id); uint32(r) != got[i] {
					t.Fatalf("id %d has rank %d, want %d", id, got[i], r)
				}
			}
		} else if !slices.Equal(got, want) {
			t.Fatalf("denseMax %d relabels differently", denseMax)
		}
	}
	for _, denseMax := range []uint64{1 << 20, 0} {
		l := &labeler{maxN: 2, denseMax: denseMax}
		if got, ok := l.labels(nil, []uint64{5, 6, 5}); !ok || !slices.Equal(got, []uint32{0, 1, 0}) {
			t.Errorf("labels %v, %v", got, ok)
		}
		if _, ok := l.labels(nil, []uint64{6, 7}); ok {
			t.Error("a third id past maxN = 2 was labelled")
		}
	}
}

func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 10, 1000, 100000} {
		for _, mask := range []uint64{0xff, 0xffff00, 1<<64 - 1} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = rng.Uint64() & mask
			}
			want := slices.Sorted(slices.Values(a))
			if got := radixSort(a, make([]uint64, n)); !slices.Equal(got, want) {
				t.Fatalf("n = %d, mask %x: not sorted", n, mask)
			}
		}
	}
}

func TestReadHyperAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			for k := range 1 + rng.IntN(6) {
				if k > 0 {
					b.WriteString(" \t"[rng.IntN(2):][:1])
				}
				fmt.Fprint(&b, rng.IntN(40))
			}
			b.WriteString([]string{"\n", "\r\n", "\n\n", "\n# c\n"}[rng.IntN(4)])
		}
		data := []byte(b.String())
		for _, n := range []uint64{0, 30, 40} {
			for _, clean := range []Clean{CleanRefuse, CleanDrop} {
				for _, bufSize := range []int{1, 5, bufFor(int64(len(data)))} {
					h, err := readHyper(bytes.NewReader(data), "h.txt", n, clean, bufSize)
					members, offsets, bins, ok := refReadHyper(data, n, clean)
					if (err == nil) != ok || err == nil && (h.N != bins || !slices.Equal(h.Members, members) || !slices.Equal(h.Offsets, offsets)) {
						t.Fatalf("trial %d, n %d, clean %d: got %+v %v, reference %v %v %d %v\n%s", trial, n, clean, h, err, members, offsets, bins, ok, data)
					}
					if err == nil {
						checkHyper(t, h, true)
					}
				}
			}
		}
	}
}

// fuzzMaxN bounds the vertices of a fuzzed Matrix Market file, whose size
// line could otherwise ask NewExplicit for gigabytes.
const fuzzMaxN = 1 << 16

var graphSeeds = []string{
	"1 2\n2 3\n3 1\n",
	"# c\n% c\n\n10\t20 0.5\r\n20 30 1 2 3\n",
	"18446744073709551615 0\n0 1\n",
	"1 1\n1 2\n2 1\n",
	"1 2\n12\n",
	"abc 1\n",
	"1 18446744073709551616\n",
	"",
	"\xef\xbb\xbf1 2",
	mmHead + "real symmetric\n% c\n3 3 2\n2 1 1.5\n3 2 -1\n",
	mmHead + "pattern general\n3 3 4\n1 2\n2 1\n2 3\n3 2\n",
	mmHead + "integer general\n3 3 2\n1 1 1\n2 3 4\n",
	mmHead + "complex general\n2 2 1\n1 2 1 0\n",
	"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
	mmHead + "real skew-symmetric\n2 2 1\n2 1 1\n",
	mmHead + "pattern general\n2 3 1\n1 2\n",
	mmHead + "pattern general\n3 3 2\n1 2\n",
	mmHead + "pattern general\n3 3 1\n1 2\n2 3\n",
	mmHead + "pattern general\n3 3 1\n0 4\n",
	mmHead + "pattern general\n4000000000 4000000000 1\n1 2\n",
}

// FuzzReadGraphFile feeds the graph reader arbitrary files, in both clean
// modes and with buffers from 1 byte up (so that lines straddle refills).
// It must never panic, must agree with the slow reference reader, and a
// graph it returns must be consistent. It calls readGraph, the reader
// behind ReadGraphFile, with fuzzMaxN vertices at most.
func FuzzReadGraphFile(f *testing.F) {
	for i, s := range graphSeeds {
		f.Add([]byte(s), i%2 == 0, uint16(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, drop bool, buf uint16) {
		clean := CleanRefuse
		if drop {
			clean = CleanDrop
		}
		bufSize := int(buf)%64 + 1
		if buf >= 1<<15 {
			bufSize = bufFor(int64(len(data))) // as the file readers do
		}
		edges, n, origin, err := readGraph(bytes.NewReader(data), int64(len(data)), "f.txt", clean, fuzzMaxN, bufSize)
		rn, redges, rok := refReadGraph(data, clean, fuzzMaxN)
		if (err == nil) != rok {
			t.Fatalf("error %v, the reference says ok = %v", err, rok)
		}
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "f.txt") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q does not name the file on one line", msg)
			}
			return
		}
		if n != rn || !slices.Equal(edges, redges) {
			t.Fatalf("got %d %v, the reference %d %v", n, pairs(edges), rn, pairs(redges))
		}
		checkGraph(t, NewExplicit("file:f.txt", n, edges, origin))
	})
}

var hyperSeeds = []string{
	"0 1 2\n3 4\n",
	"# c\n\n5\t3\r\n4 0 2 1\n",
	"1 1 2\n",
	"1 x\n",
	"4294967294 0\n",
	"4294967295\n",
	"",
	"% only\n",
	"1 99999999999999999999\n",
}

// FuzzReadHyperFile does for hyperedge files what FuzzReadGraphFile does
// for graphs, with --bins from the fuzzer too.
func FuzzReadHyperFile(f *testing.F) {
	for i, s := range hyperSeeds {
		f.Add([]byte(s), uint64(i%3*5), i%2 == 0, uint16(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint64, drop bool, buf uint16) {
		clean := CleanRefuse
		if drop {
			clean = CleanDrop
		}
		bufSize := int(buf)%64 + 1
		if buf >= 1<<15 {
			bufSize = bufFor(int64(len(data))) // as the file readers do
		}
		h, err := readHyper(bytes.NewReader(data), "f.txt", n, clean, bufSize)
		members, offsets, bins, ok := refReadHyper(data, n, clean)
		if (err == nil) != ok {
			t.Fatalf("error %v, the reference says ok = %v", err, ok)
		}
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || n <= MaxVertices && !strings.Contains(msg, "f.txt") {
				t.Fatalf("error %q does not name the file on one line", msg)
			}
			return
		}
		if h.N != bins || !slices.Equal(h.Members, members) || !slices.Equal(h.Offsets, offsets) {
			t.Fatalf("got %+v, the reference %v %v %d", h, members, offsets, bins)
		}
		checkHyper(t, h, true)
	})
}

// writeRandomEdgeList writes a random edge list of the given size into a
// fresh directory, with vertex ids 0..vertices−1 ("dense") or random 64-bit
// ids ("sparse"), and returns its path.
func writeRandomEdgeList(t testing.TB, mode string, edges, vertices int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 10))
	ids := make([]uint64, vertices)
	for i := range ids {
		ids[i] = uint64(i)
		if mode == "sparse" {
			ids[i] = rng.Uint64()
		}
	}
	path := filepath.Join(t.TempDir(), mode+".txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("# a random graph\n")
	var line []byte
	for range edges {
		u := rng.IntN(vertices)
		v := (u + 1 + rng.IntN(vertices-1)) % vertices
		line = strconv.AppendUint(line[:0], ids[u], 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, ids[v], 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadWork loads a random edge list of the given size (10 edges a vertex)
// by ReadGraphFile and checks the work it took, not the seconds
// (BenchmarkReadGraphFile has those, against the plainest parse in the same
// run): at most 200 heap allocations whatever the size (the reader's
// buffers, batches and tables are sized up front; measured 80 to 122 from
// 10^4 to 3·10^6 edges), and at most 100 bytes allocated per edge
// (measured 34 to 45 dense and 40 to 81 sparse over those sizes). Catches
// anything allocated per line or per id (a string per line: 200090
// allocations at the short size), and the edge array grown by appends
// instead of sized once (sparse ids: 111 bytes an edge).
func loadWork(t *testing.T, mode string, edges int) {
	vertices := edges / 10
	path := writeRandomEdgeList(t, mode, edges, vertices)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := ReadGraphFile("file:"+path, path, CleanDrop)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	mallocs, bytes := after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
	fi, _ := os.Stat(path)
	t.Logf("%s ids: loaded %d KiB, %d edges on %d vertices: %d allocations, %.1f bytes an edge (%s)",
		mode, fi.Size()>>10, g.E, g.N, mallocs, float64(bytes)/float64(edges), g.Origin)
	// About edges²/vertices² = 100 duplicates are dropped.
	if g.N != uint64(vertices) || g.E < uint64(edges)-1000 {
		t.Errorf("N = %d, E = %d", g.N, g.E)
	}
	if mallocs > 200 {
		t.Errorf("%s ids, %d edges: loading made %d heap allocations, more than 200: something is allocated per line or grown", mode, edges, mallocs)
	}
	if bytes > 100*uint64(edges) {
		t.Errorf("%s ids, %d edges: loading allocated %d bytes, %.1f an edge, more than 100", mode, edges, bytes, float64(bytes)/float64(edges))
	}
}

// ReadGraphFile's work on a 10^5-edge edge list (10^4 vertices), dense and
// sparse ids: loadWork's bounds, checked in -short.
func TestLoadEdgesWork(t *testing.T) {
	for _, mode := range []string{"dense", "sparse"} {
		t.Run(mode, func(t *testing.T) { loadWork(t, mode, 100_000) })
	}
}

// The same bounds at 10^7 edges on 10^6 vertices (the brief's size; it asked
// for loading in 5 s on a 2-core machine, a figure BenchmarkReadGraphFile
// measures: 10^7 edges at the plain parse's speed or better).
func TestLoadTenMillionEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads two 10^7-edge files")
	}
	for _, mode := range []string{"dense", "sparse"} {
		t.Run(mode, func(t *testing.T) { loadWork(t, mode, 10_000_000) })
	}
}

// BenchmarkReadGraphFile: ReadGraphFile on a 10^6-edge edge list (10^5
// vertices, dense and sparse ids) against the plainest parse of the same
// file in the same run (bufio.Scanner's lines, strings.Fields,
// strconv.ParseUint, appended to a slice: no relabelling, no checks), both
// from the page cache; it reports each one's edges/s and the ratio
// read/plain (≥ 1: the loader is no slower than the parse it has to do).
func BenchmarkReadGraphFile(b *testing.B) {
	const edges, vertices = 1_000_000, 100_000
	for _, mode := range []string{"dense", "sparse"} {
		b.Run(mode, func(b *testing.B) {
			path := writeRandomEdgeList(b, mode, edges, vertices)
			var read, plain float64
			for range b.N {
				start := time.Now()
				if _, err := ReadGraphFile("file:"+path, path, CleanDrop); err != nil {
					b.Fatal(err)
				}
				read += time.Since(start).Seconds()
				start = time.Now()
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				var ids []uint64
				sc := bufio.NewScanner(f)
				for sc.Scan() {
					if fs := strings.Fields(sc.Text()); len(fs) == 2 && fs[0][0] != '#' {
						u, _ := strconv.ParseUint(fs[0], 10, 64)
						v, _ := strconv.ParseUint(fs[1], 10, 64)
						ids = append(ids, u, v)
					}
				}
				f.Close()
				plain += time.Since(start).Seconds()
				if len(ids) != 2*edges {
					b.Fatalf("the plain parse read %d ids", len(ids))
				}
			}
			b.ReportMetric(edges*float64(b.N)/read, "edges/s-read")
			b.ReportMetric(edges*float64(b.N)/plain, "edges/s-plain")
			b.ReportMetric(plain/read, "read/plain")
		})
	}
}

// A line longer than maxLineBytes (a file without newlines) is refused with
// its file and line, in both formats, and no more of the file is read.
func TestReadLineTooLong(t *testing.T) {
	defer func(old int) { maxLineBytes = old }(maxLineBytes)
	maxLineBytes = 1 << 12
	long := "1 2\n" + strings.Repeat("7", 3<<12) + " 3\n"
	// A stream (size unknown), read from a small buffer, as a file larger
	// than readBufSize is.
	want := "g.txt:2: a line longer than 4.0 KiB"
	if _, _, _, err := readGraph(strings.NewReader(long), 0, "g.txt", CleanRefuse, MaxVertices, 256); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("graph: %v, want %q", err, want)
	}
	if _, err := readHyper(strings.NewReader(long), "g.txt", 0, CleanRefuse, 256); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("hyperedges: %v, want %q", err, want)
	}
}

// A file larger than the memory available is refused before it is read.
func TestReadFileLargerThanMemory(t *testing.T) {
	defer func(f func() units.Memory) { availableMemory = f }(availableMemory)
	SetAvailableMemory(func() uint64 { return 10 })
	path := writeTemp(t, "g.txt", "1 2\n2 3\n3 1\n")
	for _, err := range []error{
		func() error { _, err := ReadGraphFile("file:g", path, CleanRefuse); return err }(),
		func() error { _, err := ReadHyperFile("file:h", path, 0, CleanRefuse); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "g.txt is 12 B, more than the 10 B of memory available (set by a test)") {
			t.Errorf("%v, want a refusal naming the size", err)
		}
	}
}
