package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/balloc/balloc/core/result"
)

func TestCheckNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return "x = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "\n"
	}
	for _, tc := range []struct {
		name, text string
		refused    bool
	}{
		{"a sweep with blocks and inline tables", "process = \"two-choice\"\n[[grid]]\nparams = { g = [1, 2], h = { a = [[1]] } }\n[grid.params]\nd = 2\n", false},
		{"32 nested arrays", deep("[", "]", 32), false},
		{"33 nested arrays", deep("[", "]", 33), true},
		{"8000 nested inline tables", deep("{a=", "}", 8000), true},
		{"brackets inside strings and comments", "a = \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\" # {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\nb = '''\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['''\n", false},
		{"a dotted key of 32 parts", strings.Repeat("a.", 31) + "a = 1\n", false},
		{"a dotted key of 33 parts", strings.Repeat("a.", 32) + "a = 1\n", true},
		{"a table header of 8000 parts", "[" + strings.Repeat("a.", 7999) + "a]\n", true},
		{"dots in values are not keys", "x = [" + strings.Repeat("1.5, ", 100) + "2.5]\nv = \"1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31.32.33\"\n", false},
	} {
		err := CheckNesting("f.toml", []byte(tc.text))
		if (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused = %v", tc.name, err, tc.refused)
		}
	}
	// The decoder is never reached: 16000 levels ran it out of memory.
	text := "process = \"one-choice\"\nbins = 10\nballs = 10\nx = " + strings.Repeat("{a=", 16000) + "1" + strings.Repeat("}", 16000) + "\n"
	path := filepath.Join(t.TempDir(), "deep.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGrid(path); err == nil || !strings.Contains(err.Error(), "deep.toml:4: keys and values nested more than 32 deep") {
		t.Errorf("ReadGrid: %v", err)
	}
}

func TestGridSizeCheckedBeforeExpansion(t *testing.T) {
	list := func(from, n int) string {
		var b []string
		for i := range n {
			b = append(b, fmt.Sprint(from+i))
		}
		return "[" + strings.Join(b, ",") + "]"
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"1000×1000×1000 in 12 KB", "process = \"g-myopic-comp\"\nbins = " + list(2, 1000) + "\nballs = " + list(1, 1000) + "\n[params]\ng = " + list(0, 1000) + "\n",
			"the grid's lists make 1e9 points, more than the 1048576"},
		{"blocks adding up past the cap", "process = \"one-choice\"\n[[grid]]\nbins = [2]\nballs = [1]\n[[grid]]\nbins = " + list(2, 1100) + "\nballs = " + list(1, 1000) + "\n",
			":5: [[grid]]: the blocks' lists make 1100001 points, more than"},
	} {
		path := filepath.Join(dir, "g.toml")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadGrid(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// newSource's line index finds the literal of a key on any line, as the
// scan from the top it replaced did (which made 32k [[grid]] blocks take 33
// s to validate: the cost is quoted in the commit, not asserted here).
func TestSourceLineIndex(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "[[grid]]\nbins = [%d, 1e%d]\r\nballs = 10 # c\n", i+1, i%9+1)
	}
	src := newSource(b.String())
	for _, i := range []int{0, 1, 1500, 2999} {
		want := []string{fmt.Sprint(i + 1), fmt.Sprintf("1e%d", i%9+1)}
		if got := valueTokens(src, 3*i+2); !slices.Equal(got, want) {
			t.Errorf("block %d: %q, want %q", i, got, want)
		}
		if got := valueTokens(src, 3*i+3); !slices.Equal(got, []string{"10"}) {
			t.Errorf("block %d balls: %q", i, got)
		}
	}
	if valueTokens(src, 3*3000+2) != nil {
		t.Error("a line past the end has tokens")
	}
}

// ScanResults reads a line at a time; whole is the obvious reader of the
// same rule, which reads the file at once. They agree on every file,
// including lines longer than the read buffer.
func TestScanResultsMatchesWholeFileReader(t *testing.T) {
	line := func(trial int, pad int) string {
		r := result.Result{Process: "one-choice", Bins: 10, Balls: 10, Trial: uint64(trial), SpecHash: strings.Repeat("a", pad)}
		b, _ := json.Marshal(&r)
		return string(b) + "\n"
	}
	whole := func(data []byte) (n int, valid int64, torn bool, err error) {
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				return n, valid, true, nil
			}
			var r result.Result
			if json.Unmarshal(data[:i], &r) != nil {
				// Only an unterminated last line is torn: a complete line
				// that is not a result, the last one too, is an error.
				return 0, 0, false, fmt.Errorf("bad line")
			}
			n++
			valid += int64(i + 1)
			data = data[i+1:]
		}
		return n, valid, false, nil
	}
	dir := t.TempDir()
	for _, text := range []string{
		"",
		line(0, 1),
		line(0, 1) + line(1, 200000) + line(2, 3),
		line(0, 1) + `{"process":"one-ch`,
		line(0, 1) + "my data line\n",
		line(0, 1) + "my data line\n\n  \n",
		line(0, 1) + "my data line\n" + line(1, 1),
		"\n" + line(0, 1),
		line(0, 70000) + line(1, 1) + "{\n",
	} {
		path := filepath.Join(dir, "results.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		wn, wvalid, wtorn, werr := whole([]byte(text))
		recs, valid, torn, err := ReadResults(path)
		if (err != nil) != (werr != nil) || len(recs) != wn || valid != wvalid || torn != wtorn {
			t.Errorf("%.40q…: %d records, valid %d, torn %v, %v; want %d, %d, %v, %v", text, len(recs), valid, torn, err, wn, wvalid, wtorn, werr)
		}
	}
	if _, _, err := ScanResults("/dev/zero", nil); err == nil || !strings.Contains(err.Error(), "a character device") {
		t.Errorf("/dev/zero: %v, want a refusal", err)
	}
	// A named pipe is refused before it is opened, which would wait for a
	// writer.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, _, err := ScanResults(fifo, nil); err == nil || !strings.Contains(err.Error(), "a FIFO") {
		t.Errorf("a FIFO: %v, want a refusal", err)
	}
}
