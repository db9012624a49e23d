// Command docscheck runs the example commands whose output README.md and
// experiments/README.md quote, and compares the numbers (make docs-check).
//
// A quoted output is a fenced block right after a marker line
//
//	<!-- docs-check: COMMAND -->
//
// COMMAND runs under sh in the repository's root, with bin/ (make build's
// balloc) first on PATH and $DOCS_TMP a fresh folder for what it writes.
// A fenced block whose first line is "$ balloc …" is checked the same way,
// the rest of the block being that command's output, unless a marker
//
//	<!-- docs-check: skip REASON -->
//
// precedes it (a run with real goroutines, whose numbers vary).
//
// Its stdout must match the block line by line, fields split on spaces, and
// every field exactly (seeded runs are pure functions of their flags), with
// two exceptions: a field in a column whose header ends in "/s" (balls/s,
// events/s) is a speed, and the count before "worker(s)" or "CPU(s)" is the
// machine's, and so is a time in seconds written "(0.5 s)";
// those are listed, not compared. A block line "[…]" stands for any lines
// up to the one matching the block's next line.
//
// The README's speed claim (two-choice's balls/s at n = 10⁴ and its ratio
// to the naive loop) must be bench/README.md's table row, rounded.
//
// Every other `balloc …` line in a fenced block of those files is listed as
// not run: an example with no quoted output, or too long for CI.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var docs = []string{"README.md", "experiments/README.md"}

// block is a checked command and the output a document quotes for it.
type block struct {
	file string
	line int // the marker's line
	cmd  string
	want []string
}

func main() {
	list := flag.Bool("list", false, "list the checked commands and the examples not run; run nothing")
	only := flag.String("only", "", "run only the checked commands containing this text")
	flag.Parse()
	var blocks []block
	var notRun []string
	for _, f := range docs {
		b, n, err := parse(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "docs-check:", err)
			os.Exit(2)
		}
		blocks = append(blocks, b...)
		notRun = append(notRun, n...)
	}
	bad := 0
	if msg := checkSpeedClaim(); msg != "" {
		fmt.Println("FAIL README.md speed claim:", msg)
		bad++
	} else {
		fmt.Println("ok   README.md speed claim matches bench/README.md's table")
	}
	checked := 1
	for _, b := range blocks {
		if !strings.Contains(b.cmd, *only) {
			continue
		}
		checked++
		if *list {
			fmt.Printf("     %s:%d %s\n", b.file, b.line, b.cmd)
			continue
		}
		start := time.Now()
		got, err := run(b.cmd)
		took := time.Since(start).Seconds()
		if err != nil {
			fmt.Printf("FAIL %s:%d %s (%.0f s): %v\n", b.file, b.line, b.cmd, took, err)
			bad++
			continue
		}
		diffs, speeds := compare(b.want, got)
		status := "ok  "
		if len(diffs) > 0 {
			status = "FAIL"
			bad++
		}
		fmt.Printf("%s %s:%d %s (%.0f s)\n", status, b.file, b.line, b.cmd, took)
		for _, d := range diffs {
			fmt.Println("       ", d)
		}
		if len(speeds) > 0 {
			fmt.Printf("        not compared (speeds, workers, times): %s\n", strings.Join(speeds, "; "))
		}
	}
	fmt.Printf("\n%d example commands in fenced blocks are not run (no quoted output, or too long for CI):\n", len(notRun))
	for _, n := range notRun {
		fmt.Println("   ", n)
	}
	switch {
	case *list:
		fmt.Printf("\ndocs-check: %d checks listed, none run\n", checked)
	case bad > 0:
		fmt.Printf("\ndocs-check: %d of %d checks failed\n", bad, checked)
		os.Exit(1)
	default:
		fmt.Printf("\ndocs-check: %d checks passed\n", checked)
	}
}

var marker = regexp.MustCompile(`^<!-- docs-check: (.*) -->$`)

// parse reads a document's checked blocks and the example lines not run.
func parse(file string) ([]block, []string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(string(data), "\n")
	var blocks []block
	var notRun []string
	for i := 0; i < len(lines); i++ {
		if m := marker.FindStringSubmatch(lines[i]); m != nil {
			j := i + 1
			if j >= len(lines) || !strings.HasPrefix(lines[j], "```") {
				return nil, nil, fmt.Errorf("%s:%d: a docs-check marker must be followed by a fenced block", file, i+1)
			}
			k := j + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
				k++
			}
			if reason, skip := strings.CutPrefix(m[1], "skip "); skip {
				notRun = append(notRun, fmt.Sprintf("%s:%d %s (skipped: %s)", file, j+2, strings.TrimPrefix(lines[j+1], "$ "), reason))
			} else {
				cmd, want := m[1], lines[j+1:k]
				if strings.HasPrefix(lines[j+1], "$ ") { // the command is shown: the marker's replaces it
					want = want[1:]
				}
				blocks = append(blocks, block{file: file, line: i + 1, cmd: cmd, want: want})
			}
			i = k
			continue
		}
		if strings.HasPrefix(lines[i], "```") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "$ balloc ") {
			k := i + 2
			for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
				k++
			}
			blocks = append(blocks, block{file: file, line: i + 2, cmd: lines[i+1][2:], want: lines[i+2 : k]})
			i = k
			continue
		}
		if strings.HasPrefix(lines[i], "```") {
			k := i + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], "```") {
				if l := strings.TrimSpace(lines[k]); strings.HasPrefix(l, "balloc ") {
					notRun = append(notRun, fmt.Sprintf("%s:%d %s", file, k+1, l))
				}
				k++
			}
			i = k
		}
	}
	return blocks, notRun, nil
}

// run runs cmd as a block's marker says, and returns its stdout.
func run(cmd string) ([]string, error) {
	tmp, err := os.MkdirTemp("", "docs-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	c := exec.Command("sh", "-c", cmd)
	c.Env = append(os.Environ(), "PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "DOCS_TMP="+tmp)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	return strings.Split(strings.TrimRight(out.String(), "\n"), "\n"), nil
}

// field is a whitespace-separated word of a line and its column.
type field struct {
	s   string
	col int
}

func fields(line string) []field {
	var fs []field
	for i := 0; i < len(line); {
		r := line[i]
		if r == ' ' || r == '\t' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fs = append(fs, field{line[i:j], len([]rune(line[:i]))})
		i = j
	}
	return fs
}

// speedColumns are the columns, [from, to), of a header line's fields that
// end in "/s"; a blank line ends a table.
type speedColumns [][2]int

func (sc speedColumns) has(col int) bool {
	for _, c := range sc {
		if col >= c[0] && col < c[1] {
			return true
		}
	}
	return false
}

func headerSpeeds(line string) speedColumns {
	fs := fields(line)
	var sc speedColumns
	for i, f := range fs {
		if strings.HasSuffix(f.s, "/s") {
			to := math.MaxInt
			if i+1 < len(fs) {
				to = fs[i+1].col
			}
			from := f.col
			if i > 0 {
				from = fs[i-1].col + len([]rune(fs[i-1].s)) + 1
			}
			sc = append(sc, [2]int{from, to})
		}
	}
	return sc
}

// compare matches got against want; it returns the differences and the
// speeds and worker counts it did not compare.
func compare(want, got []string) (diffs, skipped []string) {
	var wantCols, gotCols speedColumns
	g := 0
	for w := 0; w < len(want); w++ {
		if strings.HasPrefix(strings.TrimSpace(want[w]), "[") && strings.HasSuffix(strings.TrimSpace(want[w]), "]") {
			if w+1 == len(want) {
				return diffs, skipped
			}
			for g < len(got) {
				if d, _ := lineDiff(want[w+1], got[g], wantCols, gotCols); d == "" {
					break
				}
				g++
			}
			continue
		}
		if g >= len(got) {
			diffs = append(diffs, fmt.Sprintf("README line %q: the output ended", want[w]))
			return diffs, skipped
		}
		if strings.TrimSpace(want[w]) == "" {
			wantCols, gotCols = nil, nil
		} else if sc := headerSpeeds(want[w]); sc != nil {
			wantCols, gotCols = sc, headerSpeeds(got[g])
		}
		d, s := lineDiff(want[w], got[g], wantCols, gotCols)
		if d != "" {
			diffs = append(diffs, d)
		}
		skipped = append(skipped, s...)
		g++
	}
	if g < len(got) {
		diffs = append(diffs, fmt.Sprintf("%d more output lines than quoted, from %q", len(got)-g, got[g]))
	}
	return diffs, skipped
}

// lineDiff compares one quoted line with one output line.
func lineDiff(want, got string, wantCols, gotCols speedColumns) (string, []string) {
	wf, gf := fields(want), fields(got)
	if len(wf) != len(gf) {
		return fmt.Sprintf("quoted %q\n         got %q", want, got), nil
	}
	var skipped []string
	for i := range wf {
		speed := wantCols.has(wf[i].col) && gotCols.has(gf[i].col)
		workers := i+1 < len(wf) && (strings.HasPrefix(wf[i+1].s, "worker(s)") || strings.HasPrefix(wf[i+1].s, "CPU(s)"))
		timing := i+1 < len(wf) && strings.HasPrefix(wf[i].s, "(") && strings.HasPrefix(wf[i+1].s, "s)")
		if speed || workers || timing {
			if wf[i].s != gf[i].s {
				skipped = append(skipped, fmt.Sprintf("%s quoted, %s now", wf[i].s, gf[i].s))
			}
			continue
		}
		if wf[i].s != gf[i].s {
			return fmt.Sprintf("quoted %q\n         got %q", want, got), nil
		}
	}
	return "", skipped
}

// checkSpeedClaim compares the README's intro claim with bench/README.md's
// table row for two-choice at n = 1e4.
func checkSpeedClaim() string {
	row, err := benchRow("two-choice", "1e4")
	if err != nil {
		return err.Error()
	}
	data, err := os.ReadFile("README.md")
	if err != nil {
		return err.Error()
	}
	claim := regexp.MustCompile(`two-choice runs at (\d+) M balls/s on one core at n = 10⁴\s+\((\d+(?:\.\d+)?)× a naive Go loop`)
	m := claim.FindStringSubmatch(string(data))
	if m == nil {
		return "no sentence \"two-choice runs at N M balls/s on one core at n = 10⁴ (R× a naive Go loop\" in the intro"
	}
	speed, ratio := strconv.FormatFloat(math.Round(row[0]), 'f', -1, 64), strconv.FormatFloat(row[2], 'f', -1, 64)
	if m[1] != speed || m[2] != ratio {
		return fmt.Sprintf("README says %s M balls/s and %s×, bench/README.md's table %s M (%.1f rounded) and %s×", m[1], m[2], speed, row[0], ratio)
	}
	return ""
}

// benchRow reads bench/README.md's first table row for process at bins:
// balloc's M balls/s, the naive loop's and the ratio.
func benchRow(process, bins string) ([3]float64, error) {
	f, err := os.Open("bench/README.md")
	if err != nil {
		return [3]float64{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 7 || strings.TrimSpace(cells[1]) != process || strings.TrimSpace(cells[2]) != bins {
			continue
		}
		var v [3]float64
		for i, c := range cells[3:6] {
			if v[i], err = strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(c), "×"), 64); err != nil {
				return v, fmt.Errorf("bench/README.md: row %q: %v", sc.Text(), err)
			}
		}
		return v, nil
	}
	return [3]float64{}, fmt.Errorf("bench/README.md has no table row for %s at %s bins", process, bins)
}
