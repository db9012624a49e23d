// Command genmemory writes kernels/memory_stale_loops.go: StaleMemory's
// loops for d samples and K cached bins, d, K ≤ 3, from one template.
// Each loop is the general loop of memory_stale.go with d and K fixed at
// generation time, so the candidates live in stack arrays of length d + K,
// the cached bins and their views in registers, and the slot rule and the
// boundary's count are unrolled: no interface call, closure, map or
// allocation per ball. Run by go generate in kernels/.
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"
	"text/template"
)

// maxFixed is the largest d and K that get a loop of their own.
const maxFixed = 3

// loop is one (d, K) pair's names and unrolled expressions for the template.
type loop struct {
	D, K        int
	Single      bool // d = K = 1: two candidates, compared without arrays
	Name        string
	Samples     string   // "j0, j1"
	SampleNames []string // j0, j1
	Distinct    []string // per sample past the first: "j1 != j0"
	CachedNames []string // c0, c1
	CachedNew   []string // per cached bin: "c0 != j0 && c0 != j1"
	Cached      string   // "c0, c1"
	CacheElems  string   // "cache[0], cache[1]"
	Views       string   // "v0, v1"
	CachedViews string   // "view[c0], view[c1]"
	Heavier     string   // "view[j0] > vm && view[j1] > vm"
	IsCached    string   // "j == c0 || j == c1"
	Kept        string   // "b2i(v0 == vk) + b2i(v1 == vk)"
	SlotRule    string   // the sequential rule's slot choice for sample j
	All, Rest   []int    // the candidate positions 0, …, d+K−1 and 1, …
}

// names is "p0", …, "p{k−1}".
func names(p string, k int) []string {
	s := make([]string, k)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", p, i)
	}
	return s
}

// each maps f over xs.
func each(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// slotRule is memory.go's sequential rule for K slots: the heaviest slot
// by view, the first on a tie, takes sample j (view vj) if j is strictly
// lighter.
func slotRule(k int) string {
	switch k {
	case 1:
		return "if vj < v0 {\nc0, v0 = j, vj\n}"
	case 2:
		return "if v1 > v0 {\nif vj < v1 {\nc1, v1 = j, vj\n}\n} else if vj < v0 {\nc0, v0 = j, vj\n}"
	case 3:
		return "switch {\ncase v2 > max(v0, v1):\nif vj < v2 {\nc2, v2 = j, vj\n}\n" +
			"case v1 > v0:\nif vj < v1 {\nc1, v1 = j, vj\n}\n" +
			"default:\nif vj < v0 {\nc0, v0 = j, vj\n}\n}"
	}
	panic("slotRule: K past maxFixed")
}

// newLoop fills the template's fields for (d, k).
func newLoop(d, k int) loop {
	js, cs, vs := names("j", d), names("c", k), names("v", k)
	l := loop{D: d, K: k, Single: d == 1 && k == 1, Name: fmt.Sprintf("staleMemoryD%dK%d", d, k), SampleNames: js, CachedNames: cs}
	l.Samples, l.Cached, l.Views = strings.Join(js, ", "), strings.Join(cs, ", "), strings.Join(vs, ", ")
	for i := 1; i < d; i++ {
		l.Distinct = append(l.Distinct, strings.Join(each(js[:i], func(p string) string { return js[i] + " != " + p }), " && "))
	}
	for _, c := range cs {
		l.CachedNew = append(l.CachedNew, strings.Join(each(js, func(j string) string { return c + " != " + j }), " && "))
	}
	elems := make([]string, k)
	for q := range elems {
		elems[q] = fmt.Sprintf("cache[%d]", q)
	}
	l.CacheElems = strings.Join(elems, ", ")
	l.CachedViews = strings.Join(each(cs, func(c string) string { return "view[" + c + "]" }), ", ")
	l.Heavier = strings.Join(each(js, func(j string) string { return "view[" + j + "] > vm" }), " && ")
	l.IsCached = strings.Join(each(cs, func(c string) string { return "j == " + c }), " || ")
	l.Kept = strings.Join(each(vs, func(v string) string { return "b2i(" + v + " == vk)" }), " + ")
	l.SlotRule = slotRule(k)
	for p := range d + k {
		l.All = append(l.All, p)
	}
	l.Rest = l.All[1:]
	return l
}

// source is memory_stale_loops.go's text: the template run over every
// (d, K) with d, K ≤ maxFixed, gofmt'ed.
func source() ([]byte, error) {
	var loops []loop
	for k := 1; k <= maxFixed; k++ {
		for d := 1; d <= maxFixed; d++ {
			loops = append(loops, newLoop(d, k))
		}
	}
	tmpl := template.Must(template.New("loops").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).Parse(loopsTemplate))
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, loops); err != nil {
		return nil, err
	}
	return format.Source(buf.Bytes())
}

// main writes memory_stale_loops.go in the working directory (kernels/
// under go generate).
func main() {
	src, err := source()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("memory_stale_loops.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
