package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Hashes of grid points that name no file are what they were before file
// contents entered the hash (computed by balloc 0.1.0 at e51a699): sweep
// folders written then still resume.
func TestGridHashesUnchangedWithoutFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.toml")
	text := "processes = [\"two-choice\", \"g-myopic-comp\", \"d-choice\", \"one-plus-beta\"]\nbins = [100, \"1e3\"]\n" +
		"balls_per_bin = [50]\ntrials = 2\nseed = 7\ncheckpoints = 4\nalpha = 0.5\n[params]\ng = [0, 2]\nd = [3, 4.0]\nbeta = [0.5, 1e-1]\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGrid(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]string{0: "9e75281f4dc648d4", 5: "9167c1d9fd64f5f7", 10: "261126e0be14d8c7"} {
		if g.Hashes[i] != want {
			t.Errorf("grid point %d (%s %s n=%d): hash %s, want %s", i, g.Specs[i].Process.Name, g.Specs[i].ParamsText(), g.Specs[i].Bins, g.Hashes[i], want)
		}
	}
}

// numberText takes a float literal exactly: an integer as its exact value,
// anything else as written; a literal the float represents exactly as
// before.
func TestNumberTextExact(t *testing.T) {
	for _, c := range []struct {
		tok  string
		y    float64
		want string
	}{
		{"1e3", 1e3, "1000"},
		{"2.5e6", 2.5e6, "2500000"},
		{"4.0", 4, "4"},
		{"0.5", 0.5, "0.5"},
		{"1e-1", 0.1, "0.1"},
		{"1e18", 1e18, "1e+18"},
		{"9007199254740993.0", 9007199254740992, "9007199254740993"},
		{"9_007_199_254_740_993.0", 9007199254740992, "9007199254740993"},
		{"1.0000000000000000001", 1, "1.0000000000000000001"},
		{"0.10", 0.1, "0.1"},
		{"inf", 0, "0"},
	} {
		if got, err := numberText(c.tok, c.y); err != nil || got != c.want {
			t.Errorf("numberText(%q, %v) = %q, %v; want %q", c.tok, c.y, got, err, c.want)
		}
	}
	if _, err := numberText("", 9007199254740992); err == nil {
		t.Error("an unknown literal of 2^53: want an error, the float may not be what was written")
	}
}

func TestValueTokens(t *testing.T) {
	text := "a = 1.5 # c\nb = [1e3, \"x,]#\" , 2.0]\n[params]\ng = [\n  1, # one\n  [2, 3],\n  4.5,\n]\nh = 'q'"
	for line, want := range map[int][]string{1: {"1.5"}, 2: {"1e3", `"x,]#"`, "2.0"}, 4: {"1", "[2, 3]", "4.5"}, 9: {"'q'"}, 3: nil} {
		if got := valueTokens(newSource(text), line); !slices.Equal(got, want) {
			t.Errorf("line %d: %q, want %q", line, got, want)
		}
	}
}
