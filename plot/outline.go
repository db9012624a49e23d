package plot

import (
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// outlineText is a canvas that draws text as the outlines of its glyphs,
// filled paths, rather than as text in a font. gonum lays text out with
// the metrics of its own font (Liberation); an SVG <text> element is drawn
// by the viewer with whatever font it has under that name, so a title
// could come out wider and run past the figure. Outlines are the same
// shapes everywhere, at the cost of text that is no longer selectable.
type outlineText struct {
	vg.CanvasSizer
	buf sfnt.Buffer
}

// FillString draws s from pt (the left end of its baseline) with the
// face's glyphs, advanced and kerned as gonum's font.Face.Width measures
// them, so the text takes exactly the room gonum laid out for it.
func (c *outlineText) FillString(f font.Face, pt vg.Point, s string) {
	if f.Face == nil {
		c.CanvasSizer.FillString(f, pt, s)
		return
	}
	// gonum measures at ppem = units per em read as 26.6 fixed point, so a
	// 26.6 value here is a length in font units; scale makes them points.
	upem := f.Face.UnitsPerEm()
	ppem := fixed.Int26_6(upem)
	scale := float64(f.Font.Size) / float64(upem)
	at := func(p fixed.Point26_6, x vg.Length) vg.Point {
		return vg.Point{X: x + vg.Length(float64(p.X)*scale), Y: pt.Y - vg.Length(float64(p.Y)*scale)}
	}
	var path vg.Path
	x := pt.X
	var prev sfnt.GlyphIndex
	for i, r := range []rune(s) {
		idx, err := f.Face.GlyphIndex(&c.buf, r)
		if err != nil {
			continue
		}
		if i > 0 {
			// No kerning for the pair (sfnt.ErrNotFound) is no kerning.
			if kern, err := f.Face.Kern(&c.buf, prev, idx, ppem, xfont.HintingNone); err == nil {
				x += vg.Length(float64(kern) * scale)
			}
		}
		prev = idx
		segs, err := f.Face.LoadGlyph(&c.buf, idx, ppem, nil)
		if err == nil {
			glyphPath(&path, segs, func(p fixed.Point26_6) vg.Point { return at(p, x) })
		}
		if adv, err := f.Face.GlyphAdvance(&c.buf, idx, ppem, xfont.HintingNone); err == nil {
			x += vg.Length(float64(adv) * scale)
		}
	}
	if len(path) > 0 {
		c.Fill(path)
	}
}

// glyphPath appends a glyph's contours to path, each closed (sfnt's y
// grows downwards; at turns a point into the canvas's).
func glyphPath(path *vg.Path, segs sfnt.Segments, at func(fixed.Point26_6) vg.Point) {
	open := false
	for _, sg := range segs {
		switch sg.Op {
		case sfnt.SegmentOpMoveTo:
			if open {
				path.Close()
			}
			path.Move(at(sg.Args[0]))
			open = true
		case sfnt.SegmentOpLineTo:
			path.Line(at(sg.Args[0]))
		case sfnt.SegmentOpQuadTo:
			path.QuadTo(at(sg.Args[0]), at(sg.Args[1]))
		case sfnt.SegmentOpCubeTo:
			path.CubeTo(at(sg.Args[0]), at(sg.Args[1]), at(sg.Args[2]))
		}
	}
	if open {
		path.Close()
	}
}
