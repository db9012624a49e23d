package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
)

// A Go program draws a figure without the binary: from results the
// library ran, gap-vs-balls has a line per grid point whose y at each
// checkpoint is the mean of the trials' gaps there (by hand), the .tex
// lists exactly those coordinates, and the SVG is an SVG. A figure built
// from one trial fewer, or a .tex that rounds, fails.
func TestBuildAndWriteWithoutTheCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.toml")
	toml := "processes = [\"one-choice\", \"two-choice\"]\nbins = [16]\nballs = [320]\ntrials = 4\ncheckpoints = 4\n"
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := sweep.ReadGrid(file)
	if err != nil {
		t.Fatal(err)
	}
	man := sweep.NewManifest(g, "", "test", "test")
	var series []Series
	for p, s := range g.Specs {
		var rs []*result.Result
		for k := range uint64(s.Trials) {
			rs = append(rs, engine.RunTrial(s, k, nil))
		}
		series = append(series, Series{Label: SeriesLabel(man.Grid[p]), Results: rs, Point: man.Grid[p]})
	}
	o := Options{Kind: "gap-vs-balls", FlagKind: "kind", FlagX: "x", FlagY: "y"}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	f, note, err := Build(o, series, false)
	if err != nil || note != "" {
		t.Fatalf("Build: %v %q", err, note)
	}
	if len(f.Lines) != 2 {
		t.Fatalf("%d lines, want 2", len(f.Lines))
	}
	for i, l := range f.Lines {
		rs := series[i].Results
		if len(l.Points) != 4 {
			t.Fatalf("%s: %d points, want 4 checkpoints", l.Label, len(l.Points))
		}
		for c, pt := range l.Points {
			mean := 0.0
			for _, r := range rs {
				mean += r.Checkpoints[c].Gap
			}
			mean /= float64(len(rs))
			if x := float64(rs[0].Checkpoints[c].Balls) / 16; pt.X != x || pt.Y != mean {
				t.Errorf("%s checkpoint %d: (%v, %v), want (%v, %v)", l.Label, c, pt.X, pt.Y, x, mean)
			}
		}
	}
	var tex bytes.Buffer
	wt, err := f.WriterTo("tex")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.WriteTo(&tex); err != nil {
		t.Fatal(err)
	}
	for _, l := range f.Lines {
		for _, pt := range l.Points {
			coord := "(" + strconv.FormatFloat(pt.X, 'g', -1, 64) + "," + strconv.FormatFloat(pt.Y, 'g', -1, 64) + ")"
			if !strings.Contains(tex.String(), coord) {
				t.Errorf(".tex lacks %s", coord)
			}
		}
	}
	var svg bytes.Buffer
	if wt, err = f.WriterTo("svg"); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.WriteTo(&svg); err != nil || !strings.Contains(svg.String(), "<svg") {
		t.Errorf("svg: %v, %d bytes", err, svg.Len())
	}
}
