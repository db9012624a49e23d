package graph

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/balloc/balloc/core/units"

	"github.com/balloc/balloc/internal/files"
)

// The readers parse bytes by hand, a buffer at a time: a 10^7-edge file
// must load in a few seconds, so there is no per-line allocation, no
// strings.Fields and no map. Ids are relabelled with a dense table when
// they are small enough for one (a table no larger than the file), else
// with an open-addressing hash table; repeated edges are found by bucketing
// the edges by their smaller endpoint, which keeps file order within a
// bucket, so the first copy of an edge is the one kept.

// readBufSize is the reader's starting buffer; a longer line grows it, up
// to maxLineBytes: a file without newlines is refused, not read whole.
const readBufSize = 4 << 20

// maxLineBytes bounds a line of a graph or hyperedge file. An edge line is
// two ids; a hyperedge of 64 MiB lists millions of bins.
var maxLineBytes = 64 << 20

// ReadGraphFile reads an undirected graph from a file, recognised by its
// content: a Matrix Market coordinate file when the first line starts with
// %%MatrixMarket (1-based vertex ids kept as they are: vertex i is bin i−1),
// else a SNAP-style edge list ('#' and '%' comment lines, two vertex ids a
// line, further columns ignored; ids relabelled 0..n−1 in increasing
// order). Edges keep file order and their endpoints' order. Self-loops and
// repeated edges are refused or dropped (the first copy kept) as clean says.
func ReadGraphFile(spec, path string, clean Clean) (*Graph, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("--graph %s: %v", spec, err)
	}
	if err := checkFileSize(path, size); err != nil {
		return nil, fmt.Errorf("--graph %s: %v", spec, err)
	}
	defer f.Close()
	edges, n, origin, err := readGraph(f, size, path, clean, MaxVertices, bufFor(size))
	if err != nil {
		return nil, fmt.Errorf("--graph %s: %v", spec, err)
	}
	return NewExplicit(spec, n, edges, origin), nil
}

// ReadHyperFile reads a hypergraph from a file: one hyperedge a line, its
// bins as non-negative integers (kept as they are), '#' and '%' comment
// lines and blank lines skipped. With n > 0 (--bins) every bin must be
// below n; with n = 0 there are max bin + 1 bins. A bin repeated within a
// line is refused or dropped (the first kept) as clean says.
func ReadHyperFile(spec, path string, n uint64, clean Clean) (*Hypergraph, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("--hyperedges %s: %v", spec, err)
	}
	if err := checkFileSize(path, size); err != nil {
		return nil, fmt.Errorf("--hyperedges %s: %v", spec, err)
	}
	defer f.Close()
	h, err := readHyper(f, path, n, clean, bufFor(size))
	if err != nil {
		return nil, fmt.Errorf("--hyperedges %s: %v", spec, err)
	}
	h.Spec = spec
	return h, nil
}

// open opens a file and says its size: 0 when unknown (not a regular
// file).
func open(path string) (*os.File, int64, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, 0, err
	}
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return f, size, nil
}

// checkFileSize refuses a file larger than the memory available: what it
// holds (4 bytes per id or bin, 2 or more file bytes each, then the
// relabelling and CSR) takes more memory than the file's bytes.
func checkFileSize(path string, size int64) error {
	if mem := availableMemory(); mem.Bytes > 0 && uint64(size) > mem.Bytes {
		return fmt.Errorf("%s is %s, more than the %v to hold what it lists; use a smaller file", path, units.FormatBytes(float64(size)), mem)
	}
	return nil
}

// bufFor is the starting buffer for a file of the given size: the whole
// of a small one, so that a small file costs no 4 MiB buffer.
func bufFor(size int64) int {
	if size > 0 && size < readBufSize {
		return int(size) + 1
	}
	return readBufSize
}

// readGraph reads either graph format from r. size is the file's size when
// known (0 if not): it bounds the dense relabelling table. maxN bounds the
// vertex count (tests lower it so that a fuzzed size line cannot ask for
// gigabytes).
func readGraph(r io.Reader, size int64, path string, clean Clean, maxN uint64, bufSize int) (edges []uint32, n uint64, origin string, err error) {
	lr := newLineReader(r, bufSize, path)
	if lr.hasPrefix("\xef\xbb\xbf") { // a UTF-8 byte-order mark
		lr.pos += 3
	}
	var format, what, hint string
	var lines int
	if lr.hasPrefix("%%MatrixMarket") {
		var mm mmHeader
		edges, n, mm, err = readMatrixMarket(lr, size, path, maxN)
		if err != nil {
			return nil, 0, "", err
		}
		format = fmt.Sprintf("Matrix Market coordinate %s %s file %s", mm.field, mm.symmetry, path)
		what = fmt.Sprintf("%d entries, %d vertices (vertex i is bin i−1)", mm.nnz, n)
		if mm.symmetry == "general" {
			hint = " (a general matrix often lists an edge as both (i,j) and (j,i))"
		}
	} else {
		edges, n, lines, err = readEdgeList(lr, size, path, maxN)
		if err != nil {
			return nil, 0, "", err
		}
		format = "edge list " + path
		what = fmt.Sprintf("%d edge lines, %d vertices (ids relabelled 0..%d in increasing order)", lines, n, n-1)
	}

	loops, dups := findRepeats(edges, n, clean == CleanDrop)
	if loops+dups > 0 && clean == CleanRefuse {
		if dups == 0 {
			hint = ""
		}
		return nil, 0, "", fmt.Errorf("%s has %s and %s%s; --graph-clean drop drops them",
			path, plural(loops, "self-loop"), plural(dups, "duplicate edge"), hint)
	}
	e := len(edges) / 2
	if loops+dups > 0 {
		edges = dropMarked(edges)
	}
	if len(edges) == 0 {
		if e == 0 {
			return nil, 0, "", fmt.Errorf("%s has no edges", path)
		}
		return nil, 0, "", fmt.Errorf("%s has no edges left after dropping %s and %s", path, plural(loops, "self-loop"), plural(dups, "duplicate edge"))
	}
	origin = fmt.Sprintf("%s: %s, %d edges", format, what, len(edges)/2)
	if loops+dups > 0 {
		origin += fmt.Sprintf("; dropped %s and %s", plural(loops, "self-loop"), plural(dups, "duplicate edge"))
	}
	return edges, n, origin, nil
}

// maxEdges bounds the edges of a file so that per-vertex counts fit in
// 32 bits.
const maxEdges = math.MaxUint32

// readEdgeList reads a SNAP-style edge list and relabels its ids.
func readEdgeList(lr *lineReader, size int64, path string, maxN uint64) (edges []uint32, n uint64, lines int, err error) {
	lab := newLabeler(size, maxN)
	// Allocate the edges once, for as many lines as the first buffer's
	// suggest (an edge line takes at least 4 bytes).
	if sample := lr.sample(); size > 0 && len(sample) > 0 {
		est := float64(bytes.Count(sample, []byte("\n"))+1) / float64(len(sample)) * float64(size)
		edges = make([]uint32, 0, 2*min(uint64(est*1.05)+16, uint64(size)/4+1))
	}
	// Parsing and labelling take about as long as each other on a file of
	// random ids, so the labelling runs in a goroutine of its own, a few
	// batches behind the parser; the batches go round between the two.
	full, empty := make(chan *idBatch, 4), make(chan *idBatch, 4)
	for range cap(empty) {
		empty <- new(idBatch)
	}
	labelled := true
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range full {
			if labelled {
				edges, labelled = lab.labels(edges, b.ids[:b.k])
			}
			empty <- b
		}
	}()
	lines, err = parseEdgeLines(lr, path, full, empty)
	close(full)
	<-done
	switch {
	case err != nil:
		return nil, 0, 0, err
	case lines == 0:
		return nil, 0, 0, fmt.Errorf("%s has no edges", path)
	case !labelled:
		return nil, 0, 0, fmt.Errorf("%s: more than %d distinct vertex ids", path, maxN)
	}
	perm := lab.order()
	if !isIdentity(perm) {
		for i, x := range edges {
			edges[i] = perm[x]
		}
	}
	return edges, uint64(len(perm)), lines, nil
}

// idBatch carries parsed ids from the parser to the labeller.
type idBatch struct {
	ids [1024]uint64
	k   int
}

// parseEdgeLines parses the edge lines, sending their ids on full in
// batches it takes from empty, and returns how many there were.
func parseEdgeLines(lr *lineReader, path string, full chan<- *idBatch, empty <-chan *idBatch) (lines int, err error) {
	b := <-empty
	b.k = 0
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		u, v, ok := twoIDs(line)
		if !ok { // the slow path: comments, blank lines, long ids, errors
			tok1, i := field(line, 0)
			if len(tok1) == 0 || tok1[0] == '#' || tok1[0] == '%' {
				continue
			}
			tok2, _ := field(line, i)
			if len(tok2) == 0 {
				return 0, lineError(path, lr.num, "want two vertex ids, got %q", clip(bytes.TrimSpace(line)))
			}
			if u, err = parseID(tok1, "vertex", path, lr.num); err != nil {
				return 0, err
			}
			if v, err = parseID(tok2, "vertex", path, lr.num); err != nil {
				return 0, err
			}
		}
		if uint64(lines) >= maxEdges {
			return 0, lineError(path, lr.num, "more than %d edges", maxEdges)
		}
		b.ids[b.k], b.ids[b.k+1] = u, v
		b.k += 2
		lines++
		if b.k == len(b.ids) {
			full <- b
			b = <-empty
			b.k = 0
		}
	}
	if lr.err != nil {
		return 0, lr.err
	}
	full <- b
	return lines, nil
}

// mmHeader is what a Matrix Market file's banner and size line say.
type mmHeader struct {
	field, symmetry string
	rows, nnz       uint64
}

// readMatrixMarket reads a Matrix Market coordinate file.
func readMatrixMarket(lr *lineReader, size int64, path string, maxN uint64) (edges []uint32, n uint64, mm mmHeader, err error) {
	fail := func(format string, args ...any) ([]uint32, uint64, mmHeader, error) {
		return nil, 0, mmHeader{}, lineError(path, lr.num, format, args...)
	}
	banner, _ := lr.next()
	var tok [6][]byte
	i := 0
	for k := range tok {
		tok[k], i = field(banner, i)
	}
	if !bytes.Equal(tok[0], []byte("%%MatrixMarket")) || len(tok[4]) == 0 || len(tok[5]) != 0 {
		return fail("want \"%%%%MatrixMarket matrix coordinate <field> <symmetry>\", got %q", clip(bytes.TrimSpace(banner)))
	}
	object, format := strings.ToLower(string(tok[1])), strings.ToLower(string(tok[2]))
	mm.field, mm.symmetry = strings.ToLower(string(tok[3])), strings.ToLower(string(tok[4]))
	switch {
	case object != "matrix":
		return fail("Matrix Market object %q: want matrix", clip(tok[1]))
	case format == "array":
		return fail("a Matrix Market array (dense) file is not a graph: want coordinate")
	case format != "coordinate":
		return fail("Matrix Market format %q: want coordinate", clip(tok[2]))
	case mm.field != "real" && mm.field != "integer" && mm.field != "pattern":
		return fail("Matrix Market field %q: want real, integer or pattern", clip(tok[3]))
	case mm.symmetry != "general" && mm.symmetry != "symmetric":
		return fail("Matrix Market symmetry %q: want general or symmetric (an undirected graph)", clip(tok[4]))
	}

	// The size line: the first line after the banner that is not a comment.
	var line []byte
	for {
		var ok bool
		if line, ok = lr.next(); !ok {
			if lr.err != nil {
				return nil, 0, mmHeader{}, lr.err
			}
			return fail("no size line (rows cols entries) after the header")
		}
		if t, _ := field(line, 0); len(t) > 0 && t[0] != '%' {
			break
		}
	}
	var sz [4][]byte
	i = 0
	for k := range sz {
		sz[k], i = field(line, i)
	}
	if len(sz[2]) == 0 || len(sz[3]) != 0 {
		return fail("want a size line \"rows cols entries\", got %q", clip(bytes.TrimSpace(line)))
	}
	var num [3]uint64
	for k := range num {
		x, st := parseUint(sz[k])
		if st != parseOK {
			return fail("want a size line \"rows cols entries\", got %q", clip(bytes.TrimSpace(line)))
		}
		num[k] = x
	}
	rows, cols, nnz := num[0], num[1], num[2]
	switch {
	case rows != cols:
		return fail("the matrix is %d×%d: a graph's adjacency matrix is square", rows, cols)
	case rows == 0:
		return fail("the matrix has no rows")
	case rows > maxN:
		return fail("%d vertices is more than %d", rows, maxN)
	case nnz == 0:
		return fail("the size line says 0 entries: the graph has no edges")
	case nnz > maxEdges:
		return fail("%d entries is more than %d edges", nnz, maxEdges)
	}
	mm.rows, mm.nnz = rows, nnz
	// Trust the entry count for the allocation only as far as the file's
	// size allows (an entry takes at least 4 bytes).
	edges = make([]uint32, 0, 2*min(nnz, uint64(size)/4+1))

	var count uint64
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		t1, i := field(line, 0)
		if len(t1) == 0 || t1[0] == '%' {
			continue
		}
		t2, _ := field(line, i)
		if len(t2) == 0 {
			return fail("want two vertex ids, got %q", clip(bytes.TrimSpace(line)))
		}
		if count == nnz {
			return fail("more entries than the %d the size line says", nnz)
		}
		u, err := parseID(t1, "vertex", path, lr.num)
		if err != nil {
			return nil, 0, mmHeader{}, err
		}
		v, err := parseID(t2, "vertex", path, lr.num)
		if err != nil {
			return nil, 0, mmHeader{}, err
		}
		if u == 0 || u > rows || v == 0 || v > rows {
			return fail("entry (%d, %d) is outside 1..%d", u, v, rows)
		}
		edges = append(edges, uint32(u-1), uint32(v-1))
		count++
	}
	if lr.err != nil {
		return nil, 0, mmHeader{}, lr.err
	}
	if count < nnz {
		return fail("the file ends after %d of the %d entries the size line says", count, nnz)
	}
	return edges, rows, mm, nil
}

// findRepeats counts the self-loops and the repeated edges ({u,v} seen
// before in either orientation, the first copy not counted). With mark it
// also turns every repeat into a self-loop on dropMarker, so that
// dropMarked, which drops every self-loop, drops it too.
func findRepeats(edges []uint32, n uint64, mark bool) (loops, dups uint64) {
	e := len(edges) / 2
	// Bucket the non-loop edges by smaller endpoint: start[u] is where
	// bucket u begins once filled in file order.
	start := make([]uint32, n+1)
	for k := 0; k < len(edges); k += 2 {
		u, v := edges[k], edges[k+1]
		if u == v {
			loops++
			continue
		}
		start[min(u, v)+1]++
	}
	for u := range n {
		start[u+1] += start[u]
	}
	// An entry is the larger endpoint and the edge's index, side by side
	// so that the scatter below writes one place per edge.
	entries := make([]uint64, uint64(e)-loops)
	for k := 0; k < len(edges); k += 2 {
		u, v := edges[k], edges[k+1]
		if u == v {
			continue
		}
		lo, hi := min(u, v), max(u, v)
		p := start[lo]
		entries[p] = uint64(k/2)<<32 | uint64(hi)
		start[lo] = p + 1
	}
	// Now bucket u is entries[start[u-1]:start[u]] (start[-1] = 0).
	// stamp[v] is u+1 once {u,v} has been seen in bucket u.
	stamp := make([]uint32, n)
	var begin uint32
	for u := range n {
		end := start[u]
		tag := uint32(u) + 1
		for _, x := range entries[begin:end] {
			v := uint32(x)
			if stamp[v] != tag {
				stamp[v] = tag
				continue
			}
			dups++
			if mark {
				k := 2 * (x >> 32)
				edges[k], edges[k+1] = dropMarker, dropMarker
			}
		}
		begin = end
	}
	return loops, dups
}

// dropMarker is an endpoint no vertex has (n ≤ MaxVertices = 2^32−1, so
// vertices end at 2^32−2).
const dropMarker = math.MaxUint32

// dropMarked removes, in place and keeping order, the self-loops and the
// edges findRepeats marked.
func dropMarked(edges []uint32) []uint32 {
	w := 0
	for k := 0; k < len(edges); k += 2 {
		u, v := edges[k], edges[k+1]
		if u == v {
			continue
		}
		edges[w], edges[w+1] = u, v
		w += 2
	}
	return edges[:w]
}

// readHyper reads a hyperedge file.
func readHyper(r io.Reader, path string, n uint64, clean Clean, bufSize int) (*Hypergraph, error) {
	if n > MaxVertices {
		return nil, fmt.Errorf("--bins %d is more than %d", n, uint64(MaxVertices))
	}
	limit := n // every bin is below limit
	if n == 0 {
		limit = MaxVertices
	}
	lr := newLineReader(r, bufSize, path)
	if lr.hasPrefix("\xef\xbb\xbf") {
		lr.pos += 3
	}
	var members []uint32
	offsets := []uint64{0}
	var scratch []uint32
	var seen []bool
	var maxBin uint32
	var repeats uint64
	minSize, maxSize := uint64(math.MaxUint64), uint64(0)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		tok, i := field(line, 0)
		if len(tok) == 0 || tok[0] == '#' || tok[0] == '%' {
			continue
		}
		first := len(members)
		for ; len(tok) > 0; tok, i = field(line, i) {
			b, err := parseID(tok, "bin", path, lr.num)
			if err != nil {
				return nil, err
			}
			if b >= limit {
				if n > 0 {
					return nil, lineError(path, lr.num, "bin %d is out of range: --bins is %d", b, n)
				}
				return nil, lineError(path, lr.num, "bin %d is more than %d", b, uint64(MaxVertices)-1)
			}
			members = append(members, uint32(b))
			maxBin = max(maxBin, uint32(b))
		}
		edge := members[first:]
		if len(edge) > 1 {
			// Repeats: sort a copy, then (rarely) drop all but the first
			// copy of each bin, in the line's order.
			scratch = append(scratch[:0], edge...)
			slices.Sort(scratch)
			k := 1
			for k < len(scratch) && scratch[k] != scratch[k-1] {
				k++
			}
			if k < len(scratch) {
				if clean == CleanRefuse {
					return nil, lineError(path, lr.num, "bin %d appears more than once in the hyperedge; --graph-clean drop drops the repeats", scratch[k])
				}
				distinct := slices.Compact(scratch)
				seen = slices.Grow(seen[:0], len(distinct))[:len(distinct)]
				clear(seen)
				w := first
				for _, b := range edge {
					p, _ := slices.BinarySearch(distinct, b)
					if seen[p] {
						continue
					}
					seen[p] = true
					members[w] = b
					w++
				}
				repeats += uint64(len(edge) - len(distinct))
				members = members[:w]
			}
		}
		size := uint64(len(members) - first)
		minSize, maxSize = min(minSize, size), max(maxSize, size)
		offsets = append(offsets, uint64(len(members)))
	}
	if lr.err != nil {
		return nil, lr.err
	}
	s := uint64(len(offsets) - 1)
	if s == 0 {
		return nil, fmt.Errorf("%s has no hyperedges", path)
	}
	bins := "--bins"
	if n == 0 {
		n = uint64(maxBin) + 1
		bins = "the largest bin + 1"
	}
	h := &Hypergraph{Family: HExplicit, N: n, S: s, Members: members, Offsets: offsets}
	sizes := fmt.Sprintf("sizes %d..%d", minSize, maxSize)
	if minSize == maxSize {
		h.K = minSize
		sizes = fmt.Sprintf("size %d", minSize)
	}
	h.Origin = fmt.Sprintf("hyperedge list %s: %d hyperedges of %s over %d bins (%s)", path, s, sizes, n, bins)
	if repeats > 0 {
		h.Origin += fmt.Sprintf("; dropped %s", plural(repeats, "repeated bin"))
	}
	return h, nil
}

// lineReader hands out the lines of r, a buffer at a time.
type lineReader struct {
	r        io.Reader
	buf      []byte
	pos, end int // unread bytes are buf[pos:end]
	eof      bool
	err      error // a read error other than io.EOF, or a line too long
	num      int   // the number of the line next returned last, from 1
	path     string
}

func newLineReader(r io.Reader, size int, path string) *lineReader {
	return &lineReader{r: r, buf: make([]byte, max(size, 1)), path: path}
}

// next returns the next line without its newline, which stays valid until
// the following call; ok is false at the end of the input or on a read
// error (lr.err).
func (lr *lineReader) next() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.pos:lr.end], '\n'); i >= 0 {
			line = lr.buf[lr.pos : lr.pos+i]
			lr.pos += i + 1
			lr.num++
			return line, true
		}
		if lr.eof {
			if lr.err != nil || lr.pos == lr.end {
				return nil, false
			}
			line = lr.buf[lr.pos:lr.end]
			lr.pos = lr.end
			lr.num++
			return line, true
		}
		lr.fill()
	}
}

// fill moves the unread bytes to the front of the buffer, grows it if they
// fill it, and reads more.
func (lr *lineReader) fill() {
	if lr.pos > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.pos:lr.end])
		lr.pos = 0
	}
	if lr.end == len(lr.buf) {
		if len(lr.buf) >= maxLineBytes {
			lr.eof, lr.err = true, lineError(lr.path, lr.num+1, "a line longer than %s; want one edge or hyperedge a line", units.FormatBytes(float64(maxLineBytes)))
			return
		}
		lr.buf = slices.Grow(lr.buf, len(lr.buf))[:2*len(lr.buf)]
	}
	k, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += k
	if err != nil {
		lr.eof = true
		if err != io.EOF {
			lr.err = err
		}
	}
}

// sample fills the buffer (as far as the input goes) and returns the
// unread bytes.
func (lr *lineReader) sample() []byte {
	for lr.end < len(lr.buf) && !lr.eof {
		lr.fill()
	}
	return lr.buf[lr.pos:lr.end]
}

// hasPrefix reports whether the unread input starts with p.
func (lr *lineReader) hasPrefix(p string) bool {
	for lr.end-lr.pos < len(p) && !lr.eof {
		lr.fill()
	}
	return bytes.HasPrefix(lr.buf[lr.pos:lr.end], []byte(p))
}

// isSpace marks the bytes that separate fields: spaces, tabs and a
// carriage return (Windows line ends), with vertical tab and form feed.
var isSpace = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

// field returns the first field of line[i:] (empty if none) and the index
// just after it.
func field(line []byte, i int) ([]byte, int) {
	for i < len(line) && isSpace[line[i]] {
		i++
	}
	j := i
	for j < len(line) && !isSpace[line[j]] {
		j++
	}
	return line[i:j], j
}

// twoIDs is the fast path of an edge line: two ids of at most 20 digits
// that fit in 64 bits, each followed by a separator or the line's end. It
// scans each byte once; false sends the line to the slow path.
func twoIDs(line []byte) (u, v uint64, ok bool) {
	i := 0
	for k := range 2 {
		for i < len(line) && isSpace[line[i]] {
			i++
		}
		var x uint64
		j := i
		for ; j < len(line); j++ {
			d := line[j] - '0'
			if d > 9 {
				break
			}
			if j-i >= 19 && (j-i > 19 || x > cut10 || x == cut10 && d > math.MaxUint64%10) {
				return 0, 0, false
			}
			x = x*10 + uint64(d)
		}
		if j == i || j < len(line) && !isSpace[line[j]] {
			return 0, 0, false
		}
		if k == 0 {
			u = x
		} else {
			v = x
		}
		i = j
	}
	return u, v, true
}

const (
	parseOK = iota
	parseBad
	parseBig
)

// cut10 is the largest x for which 10x cannot overflow.
const cut10 = math.MaxUint64 / 10

// parseUint parses a decimal non-negative integer.
func parseUint(tok []byte) (x uint64, status int) {
	if len(tok) == 0 {
		return 0, parseBad
	}
	for _, c := range tok {
		d := c - '0'
		if d > 9 {
			return 0, parseBad
		}
		if x >= cut10 && (x > cut10 || d > math.MaxUint64%10) {
			status = parseBig // keep checking that it is a number
			continue
		}
		x = x*10 + uint64(d)
	}
	if status == parseBig {
		return 0, parseBig
	}
	return x, parseOK
}

// parseID parses a vertex or bin id, with an error that names the line.
func parseID(tok []byte, noun, path string, num int) (uint64, error) {
	x, st := parseUint(tok)
	switch st {
	case parseBad:
		return 0, lineError(path, num, "%q is not a %s id", clip(tok), noun)
	case parseBig:
		return 0, lineError(path, num, "%s id %s is more than 2^64−1", noun, clip(tok))
	}
	return x, nil
}

func lineError(path string, num int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", path, num, fmt.Sprintf(format, args...))
}

// clip shortens a token or line quoted in an error.
func clip(b []byte) string {
	const most = 60
	if len(b) > most {
		return string(b[:most]) + "..."
	}
	return string(b)
}

func plural(k uint64, noun string) string {
	if k == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", k, noun)
}

func isIdentity(perm []uint32) bool {
	for i, p := range perm {
		if p != uint32(i) {
			return false
		}
	}
	return true
}

// labeler gives every distinct id a provisional label, in order of first
// appearance; order then maps those to ranks in increasing id order.
type labeler struct {
	ids  []uint64 // ids[label]
	maxN uint64   // the most ids allowed

	// Dense mode: dense[id] = label+1 (0: unseen), grown on demand while
	// every id is below denseMax.
	dense    []uint32
	denseMax uint64

	// Hash mode, once an id ≥ denseMax turns up: open addressing with
	// linear probing, a slot's id and label side by side (one cache line).
	hashed bool
	table  []slot
	shift  uint

	sink uint64 // keeps the prefetching loads in labels
}

type slot struct {
	id  uint64
	lab uint32 // label+1; 0: empty
}

func newLabeler(size int64, maxN uint64) *labeler {
	// A table of 4-byte labels no larger than the file (plus 4 MiB).
	return &labeler{maxN: maxN, denseMax: uint64(max(size, 0))/4 + 1<<20}
}

// labels appends the labels of ids to dst, giving new ids the next ones;
// false when that would make more than maxN ids.
func (l *labeler) labels(dst []uint32, ids []uint64) ([]uint32, bool) {
	// First touch every id's entry: the loads are independent, so the
	// processor overlaps their cache misses, and the lookups below, which
	// branch on what they load, find the lines present. (On 10^7 edges
	// of random 64-bit ids it cut the lookups from 3 s to about 1 s.)
	var sink uint64
	if l.hashed {
		for _, id := range ids {
			sink += l.table[l.hash(id)].id
		}
	} else {
		for _, id := range ids {
			if id < uint64(len(l.dense)) {
				sink += uint64(l.dense[id])
			}
		}
	}
	l.sink += sink
	for _, id := range ids {
		if l.hashed {
			if t := &l.table[l.find(id)]; t.lab != 0 {
				dst = append(dst, t.lab-1)
				continue
			}
		} else if id < uint64(len(l.dense)) && l.dense[id] != 0 {
			dst = append(dst, l.dense[id]-1)
			continue
		}
		lab, ok := l.add(id)
		if !ok {
			return dst, false
		}
		dst = append(dst, lab)
	}
	return dst, true
}

// add labels an id not seen before.
func (l *labeler) add(id uint64) (uint32, bool) {
	if uint64(len(l.ids)) >= l.maxN {
		return 0, false
	}
	if !l.hashed && id >= l.denseMax {
		l.dense, l.hashed = nil, true
		l.rehash(max(len(l.ids), 1<<10))
	}
	l.ids = append(l.ids, id)
	lab := uint32(len(l.ids) - 1)
	if !l.hashed {
		if id >= uint64(len(l.dense)) {
			grown := make([]uint32, min(max(2*uint64(len(l.dense)), id+1, 1<<12), l.denseMax))
			copy(grown, l.dense)
			l.dense = grown
		}
		l.dense[id] = lab + 1
		return lab, true
	}
	l.table[l.find(id)] = slot{id, lab + 1}
	if 4*len(l.ids) > 3*len(l.table) {
		l.rehash(len(l.ids))
	}
	return lab, true
}

// rehash builds a hash table of at least twice size slots (a power of two)
// holding every id so far.
func (l *labeler) rehash(size int) {
	bitsNeeded := uint(1)
	for 1<<bitsNeeded < 2*size {
		bitsNeeded++
	}
	l.table = make([]slot, 1<<bitsNeeded)
	l.shift = 64 - bitsNeeded
	for i, id := range l.ids {
		l.table[l.find(id)] = slot{id, uint32(i) + 1}
	}
}

// hash is id's home slot: Fibonacci hashing, whose top bits mix best.
func (l *labeler) hash(id uint64) uint64 { return (id * 0x9e3779b97f4a7c15) >> l.shift }

// find returns id's slot, or the empty slot where it would go.
func (l *labeler) find(id uint64) uint64 {
	mask := uint64(len(l.table) - 1)
	s := l.hash(id)
	for l.table[s].lab != 0 && l.table[s].id != id {
		s = (s + 1) & mask
	}
	return s
}

// order returns perm, perm[label] = the rank of ids[label] among the ids.
func (l *labeler) order() []uint32 {
	perm := make([]uint32, len(l.ids))
	if !l.hashed {
		var r uint32
		for _, v := range l.dense {
			if v != 0 {
				perm[v-1] = r
				r++
			}
		}
		l.dense = nil
		return perm
	}
	sorted := radixSort(slices.Clone(l.ids), make([]uint64, len(l.ids)))
	for r, id := range sorted {
		perm[l.table[l.find(id)].lab-1] = uint32(r)
	}
	l.table = nil
	return perm
}

// radixSort sorts a, using tmp (as long) as scratch, and returns whichever
// of the two holds the result: least significant byte first, skipping
// bytes every key shares.
func radixSort(a, tmp []uint64) []uint64 {
	if len(a) < 2 {
		return a
	}
	var count [8][256]int
	for _, x := range a {
		for d := range 8 {
			count[d][byte(x>>(8*d))]++
		}
	}
	src, dst := a, tmp
	for d := range 8 {
		c := &count[d]
		shift := 8 * uint(d)
		if c[byte(src[0]>>shift)] == len(src) {
			continue
		}
		sum := 0
		for b := range c {
			c[b], sum = sum, sum+c[b]
		}
		for _, x := range src {
			b := byte(x >> shift)
			dst[c[b]] = x
			c[b]++
		}
		src, dst = dst, src
	}
	return src
}
