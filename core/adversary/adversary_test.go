package adversary

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

func TestParse(t *testing.T) {
	src := `# fill, thin, refill
+ 3
+          # one more
- 2
- 1..4/3   # balls 1 and 4
+ 1e1
- 5..7
`
	seq, err := Parse(strings.NewReader(src), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := func(k uint32) uint32 { return k }
	var want []uint32
	for range 4 {
		want = append(want, kernels.AdvInsert)
	}
	want = append(want, d(2), d(1), d(4))
	for range 10 {
		want = append(want, kernels.AdvInsert)
	}
	want = append(want, d(5), d(6), d(7))
	if !slices.Equal(seq.Ops, want) {
		t.Fatalf("ops %v, want %v", seq.Ops, want)
	}
	if seq.Inserts != 14 || seq.Peak != 11 || seq.End != 8 {
		t.Fatalf("inserts %d peak %d end %d, want 14 11 8", seq.Inserts, seq.Peak, seq.End)
	}
}

func TestParseRefusesInOneLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"+ 2\n- 3\n", `s.txt:2: "- 3": ball 3 has not been inserted (2 so far)`},
		{"+ 2\n- 1\n\n- 1\n", `s.txt:4: "- 1": ball 1 was deleted already`},
		{"+ 2\n* 1\n", `s.txt:2: "* 1": an operation is + (insert) or - (delete)`},
		{"+ 0\n", `s.txt:1: "+ 0": want + or + C with C a positive count`},
		{"+ x\n", `s.txt:1: "+ x": want + or + C`},
		{"+ 1e9\n", `s.txt:1: "+ 1e9": more than 134217728 operations`},
		{"+ 5\n- 3..2\n", `s.txt:2: "- 3..2": want - K, - A..B or - A..B/S`},
		{"+ 5\n- 1..4/0\n", `s.txt:2: "- 1..4/0": want - K`},
		{"+ 5\n- 0\n", `s.txt:2: "- 0": want - K`},
		{"+ 5\n- 3/2\n", `s.txt:2: "- 3/2": want - K`},
		{"# nothing\n\n", `s.txt: no operations`},
	} {
		_, err := Parse(strings.NewReader(c.src), "s.txt")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line starting %q", c.src, err, c.want)
		}
	}
}

func TestBuiltins(t *testing.T) {
	for _, c := range []struct {
		spec                string
		ops, ins, peak, end int
		firstDeletes        []uint32
	}{
		{"alternate:5", 8, 5, 5, 2, []uint32{1, 3, 5}},
		{"refill:5", 11, 8, 5, 5, []uint32{1, 3, 5}},
		{"sliding:4,3", 10, 7, 4, 4, []uint32{1, 2, 3}},
		{"random-half:10,7", 15, 10, 10, 5, nil},
	} {
		s, err := Builtin(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		var dels []uint32
		for _, op := range s.Ops {
			if op != kernels.AdvInsert {
				dels = append(dels, op)
			}
		}
		if len(s.Ops) != c.ops || int(s.Inserts) != c.ins || int(s.Peak) != c.peak || int(s.End) != c.end {
			t.Errorf("%s: ops %d inserts %d peak %d end %d, want %d %d %d %d", c.spec, len(s.Ops), s.Inserts, s.Peak, s.End, c.ops, c.ins, c.peak, c.end)
		}
		if c.firstDeletes != nil && !slices.Equal(dels[:len(c.firstDeletes)], c.firstDeletes) {
			t.Errorf("%s: deletions %v, want %v first", c.spec, dels, c.firstDeletes)
		}
		again, _ := Builtin(c.spec)
		if !slices.Equal(again.Ops, s.Ops) {
			t.Errorf("%s: not the same sequence twice", c.spec)
		}
	}
	for _, bad := range []string{"nope:4", "alternate", "alternate:1", "alternate:4,5", "sliding:4", "random-half:x", "alternate:1e9"} {
		if _, err := Builtin(bad); err == nil || !strings.HasPrefix(err.Error(), "--builtin") {
			t.Errorf("%q: error %v, want a refusal naming --builtin", bad, err)
		}
	}
}

// outcome is what the exact law is taken over: every present ball's bin,
// the largest n·gap and the largest max load over the sequence.
type outcome struct {
	where   string
	maxGapN int64
	top     int
}

// exactLaw enumerates a sequence on n bins under a rule, the ball's pair
// uniform over [n]², Greedy's ties broken by a fair coin (the paper's
// rule; the kernel's ties to the first pair member are the same law), the
// modulated rule's probability clamp(1/2 + (l_j − l_i)/(2w), 0, 1).
func exactLaw(ops []uint32, n int, rule Rule) map[outcome]float64 {
	type state struct {
		where   string // one byte a ball: its bin, or 'x' once deleted
		maxGapN int64
		top     int
	}
	law := map[state]float64{{}: 1}
	for _, op := range ops {
		next := map[state]float64{}
		for s, p := range law {
			loads := make([]int, n)
			present := 0
			for _, b := range []byte(s.where) {
				if b != 'x' {
					loads[b-'0']++
					present++
				}
			}
			add := func(where string, l []int, pr int, q float64) {
				g := int64(n)*int64(slices.Max(l)) - int64(pr)
				ns := state{where, max(s.maxGapN, g), max(s.top, slices.Max(l))}
				next[ns] += q
			}
			if op != kernels.AdvInsert {
				w := []byte(s.where)
				loads[w[op-1]-'0']--
				w[op-1] = 'x'
				add(string(w), loads, present-1, p)
				continue
			}
			for i := range n {
				for j := range n {
					var toI float64
					if rule.OneChoice {
						toI = 1
					} else if rule.Width == 0 {
						switch {
						case loads[i] < loads[j]:
							toI = 1
						case loads[i] == loads[j]:
							toI = 0.5
						}
					} else {
						w := float64(rule.Width)
						toI = math.Min(1, math.Max(0, 0.5+float64(loads[j]-loads[i])/(2*w)))
					}
					for _, c := range []struct {
						b int
						q float64
					}{{i, toI}, {j, 1 - toI}} {
						if c.q == 0 {
							continue
						}
						l := slices.Clone(loads)
						l[c.b]++
						add(s.where+string(rune('0'+c.b)), l, present+1, p*c.q/float64(n*n))
					}
				}
			}
		}
		law = next
	}
	out := map[outcome]float64{}
	for s, p := range law {
		out[outcome(s)] += p
	}
	return out
}

// TestExactLaw compares the joint law of every ball's bin, the largest gap
// and the largest max load after a small sequence of insertions and
// deletions on 3 bins, enumerated exactly, with simulated trials (χ² at
// false-alarm 1e-4), for Greedy, the modulated rule at w = 1 (Greedy
// except at equal loads, where the coin is fair) and w = 2, and one-choice. Each rule's
// trials are also tested against the other rule's law, which must fail.
func TestExactLaw(t *testing.T) {
	seq, err := Parse(strings.NewReader("+ 3\n- 2\n+ 2\n- 1\n- 4\n+\n"), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	trials := 40000
	if testing.Short() {
		trials = 15000
	}
	rules := []Rule{Greedy, Modulated(2), Modulated(1), OneChoice}
	laws := make([]map[outcome]float64, len(rules))
	obs := make([]map[outcome]int, len(rules))
	for r, rule := range rules {
		laws[r] = exactLaw(seq.Ops, 3, rule)
		obs[r] = map[outcome]int{}
		st := NewState(seq, 3)
		for k := range trials {
			tr := RunTrial(seq, 3, rule, 11, uint64(k), nil, st)
			var w []byte
			for b := range seq.Inserts {
				w = append(w, byte('0'+st.Where[b]))
			}
			for _, op := range seq.Ops {
				if op != kernels.AdvInsert {
					w[op-1] = 'x'
				}
			}
			o := outcome{string(w), st.MaxGapN, int(st.Top)}
			if got := float64(o.maxGapN) / 3; got != tr.MaxGap {
				t.Fatalf("%v: MaxGap %v, state says %v", rule, tr.MaxGap, got)
			}
			obs[r][o]++
		}
		stat, limit, df := stattest.Law(laws[r], obs[r], trials)
		t.Logf("%v: χ² = %.1f on %d df (limit %.1f), %d outcomes", rule, stat, df, limit, len(laws[r]))
		if stat > limit {
			t.Errorf("%v: χ² = %.1f on %d df against its exact law, limit %.1f", rule, stat, df, limit)
		}
	}
	// Greedy's trials against the modulated law at w = 2 (and back) must
	// fail: the test tells the rules apart.
	for _, p := range [][2]int{{0, 1}, {1, 0}} {
		stat, limit, df := stattest.Law(laws[p[1]], obs[p[0]], trials)
		t.Logf("%v's trials against %v's law: χ² = %.1f on %d df (limit %.1f)", rules[p[0]], rules[p[1]], stat, df, limit)
		if stat <= limit {
			t.Errorf("%v's trials pass %v's law (χ² = %.1f on %d df, limit %.1f): the test cannot tell them apart", rules[p[0]], rules[p[1]], stat, df, limit)
		}
	}
}

// TestRunIsPureInTheTrial: the summary is the same for 1 and 3 workers,
// and a checkpoint at the end reads the final gap.
func TestRunIsPureInTheTrial(t *testing.T) {
	seq, _ := Builtin("refill:400")
	at := CheckpointOps(len(seq.Ops), 4)
	if at[len(at)-1] != len(seq.Ops) {
		t.Fatalf("checkpoints %v do not end at %d", at, len(seq.Ops))
	}
	for _, rule := range []Rule{Greedy, Modulated(DefaultWidth(seq.Peak)), OneChoice} {
		a := Run(seq, 4, rule, 3, 12, 1, at)
		b := Run(seq, 4, rule, 3, 12, 3, at)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%v: 1 worker %v, 3 workers %v", rule, a, b)
		}
		if a.At[len(a.At)-1] != a.FinalGap {
			t.Fatalf("%v: last checkpoint %v, final gap %v", rule, a.At[len(a.At)-1], a.FinalGap)
		}
	}
	if DefaultWidth(400) != 9 || DefaultWidth(512) != 9 || DefaultWidth(513) != 10 || DefaultWidth(1) != 1 {
		t.Fatal("DefaultWidth is not ⌈log₂ P⌉")
	}
}

// TestExampleFileIsTheBuiltin: experiments/adversary-refill.seq, the
// README's example file, is refill:4096 written out.
func TestExampleFileIsTheBuiltin(t *testing.T) {
	fh, err := os.Open("../../experiments/adversary-refill.seq")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	file, err := Parse(fh, "adversary-refill.seq")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Builtin("refill:4096")
	if !slices.Equal(file.Ops, b.Ops) {
		t.Fatal("the example file is not refill:4096")
	}
}

// ParseRules keeps the printing order whatever the list's, sets the
// modulated width (given, or the default for the peak), and refuses an
// unknown or repeated name and a width without the modulated rule.
func TestParseRules(t *testing.T) {
	got, err := ParseRules("one-choice,modulated,greedy", 0, 1000)
	if want := []Rule{Greedy, Modulated(DefaultWidth(1000)), OneChoice}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseRules = %v, %v; want %v", got, err, want)
	}
	if got, err := ParseRules("modulated", 7, 1000); err != nil || !slices.Equal(got, []Rule{Modulated(7)}) {
		t.Errorf("width 7: %v, %v", got, err)
	}
	for _, bad := range []string{"greedy,best", "greedy,greedy", ""} {
		if _, err := ParseRules(bad, 0, 10); err == nil {
			t.Errorf("ParseRules(%q) accepted", bad)
		}
	}
	if _, err := ParseRules("greedy", 3, 10); !errors.Is(err, ErrWidthUnused) {
		t.Errorf("a width without the modulated rule: %v", err)
	}
}
