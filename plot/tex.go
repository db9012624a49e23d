package plot

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// texWriter writes a Figure as a standalone pgfplots file: pdflatex
// compiles it as it is, and the \addplot coordinates are the Figure's
// numbers, for a paper's own axis options.
type texWriter struct{ f *Figure }

// WriteTo writes the .tex file into w.
func (t texWriter) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	b := bufio.NewWriter(cw)
	texFigure(b, t.f)
	err := b.Flush()
	return cw.n, err
}

// countingWriter counts the bytes written through it, for WriteTo.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// texNum writes a coordinate exactly enough to read back the same float64.
func texNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func texFigure(w *bufio.Writer, f *Figure) {
	fmt.Fprintln(w, `% Written by balloc plot: a standalone pgfplots figure (pdflatex compiles it as it is).`)
	fmt.Fprintln(w, `% Each \addplot lists the plotted coordinates; "+- (0,e)" is the half-width of a 95% CI.`)
	fmt.Fprintln(w, `\documentclass[tikz]{standalone}`)
	fmt.Fprintln(w, `\usepackage{pgfplots}`)
	fmt.Fprintln(w, `\pgfplotsset{compat=1.14}`)
	used := map[int]bool{}
	for _, s := range f.Lines {
		used[s.Style%len(palette)] = true
	}
	for k, c := range palette {
		if used[k] {
			fmt.Fprintf(w, "\\definecolor{balloc%c}{RGB}{%d,%d,%d}\n", 'A'+k, c.R, c.G, c.B)
		}
	}
	fmt.Fprintln(w, `\begin{document}`)
	fmt.Fprintln(w, `\begin{tikzpicture}`)
	fmt.Fprintf(w, "\\begin{axis}[\n  %s,\n]\n", strings.Join(texAxisOptions(f), ",\n  "))
	texLines(w, f)
	fmt.Fprintln(w, `\end{axis}`)
	fmt.Fprintln(w, `\end{tikzpicture}`)
	fmt.Fprintln(w, `\end{document}`)
}

// texAxisOptions are the axis' options: size, title and caption, labels,
// the legend outside, log modes, bars.
func texAxisOptions(f *Figure) []string {
	title := TeXText(f.Title)
	if f.Caption != "" {
		title += `\\{\small ` + TeXText(f.Caption) + "}"
	}
	opts := []string{
		"width=14cm", "height=8.5cm", "grid=major",
		"title={" + title + "}", "title style={align=center}",
		"xlabel={" + TeXText(f.XLabel) + "}",
		"ylabel={" + TeXText(f.YLabel) + "}",
		"legend pos=outer north east", "legend cell align=left", `legend style={font=\footnotesize}`,
	}
	if f.LogX {
		opts = append(opts, "xmode=log", "log basis x=10")
	}
	if f.LogY {
		opts = append(opts, "ymode=log", "log basis y=10")
	}
	if f.Bars {
		// Bars on the numeric gap axis, the series side by side within one
		// bar width (in axis units), as the image draws them.
		opts = append(opts, "ybar", "bar width="+texNum(0.9*f.BarWidth/float64(len(f.Lines))), "ymin=0", "ymax=100")
	}
	return opts
}

// texLines writes each line's \addplot (its band first), then the notes.
func texLines(w *bufio.Writer, f *Figure) {
	for i, s := range f.Lines {
		color := fmt.Sprintf("balloc%c", 'A'+s.Style%len(palette))
		if f.Bands && !s.Theory && !f.Bars {
			fmt.Fprintf(w, "\\addplot[draw=none, fill=%s, fill opacity=0.2, forget plot] coordinates {", color)
			for _, p := range s.Points {
				fmt.Fprintf(w, " (%s,%s)", texNum(p.X), texNum(p.Lo))
			}
			for i := len(s.Points) - 1; i >= 0; i-- {
				fmt.Fprintf(w, " (%s,%s)", texNum(s.Points[i].X), texNum(s.Points[i].Hi))
			}
			fmt.Fprintln(w, " };")
		}
		var style []string
		switch {
		case f.Bars:
			shift := f.BarWidth * (-0.45 + 0.9*(float64(i)+0.5)/float64(len(f.Lines)))
			style = []string{"draw=none", "fill=" + color, "bar shift=" + texNum(shift)}
		case s.Theory:
			style = []string{color, "thin", "dashed", "mark=none", "forget plot"}
		default:
			style = []string{color, "thick", texDash(s.Style)}
			if s.Marks {
				style = append(style, "mark="+texMark(s.Style), "mark options={solid}")
			} else {
				style = append(style, "mark=none")
			}
		}
		errs := false
		for _, p := range s.Points {
			errs = errs || p.Err > 0
		}
		if errs {
			style = append(style, "error bars/.cd", "y dir=both", "y explicit", "error bar style={solid}")
		}
		fmt.Fprintf(w, "\\addplot[%s] coordinates {\n", strings.Join(style, ", "))
		for _, p := range s.Points {
			if errs {
				fmt.Fprintf(w, "  (%s,%s) +- (0,%s)\n", texNum(p.X), texNum(p.Y), texNum(p.Err))
			} else {
				fmt.Fprintf(w, "  (%s,%s)\n", texNum(p.X), texNum(p.Y))
			}
		}
		fmt.Fprintln(w, "};")
		if !s.Theory {
			fmt.Fprintf(w, "\\addlegendentry{%s}\n", TeXText(s.Label))
		}
	}
	for _, n := range f.Notes {
		if n.Dashed {
			fmt.Fprintln(w, `\addlegendimage{gray, thin, dashed}`)
		} else {
			fmt.Fprintln(w, `\addlegendimage{empty legend}`)
		}
		fmt.Fprintf(w, "\\addlegendentry{%s}\n", TeXText(n.Text))
	}
}

// texDash: solid for the first round of colours, then the dash patterns.
func texDash(style int) string {
	return []string{"solid", "dashed", "dotted", "dashdotted", "densely dashed", "loosely dotted"}[style/len(palette)%6]
}

func texMark(style int) string {
	return []string{"*", "square*", "triangle*", "diamond*", "o", "square"}[style/len(palette)%6]
}

// texPower is a power as labels write it, 10^8 or 2^34: TeX's 10$^{8}$.
var texPower = regexp.MustCompile(`\^(\d+)`)

// texReplacer makes labels safe for pdflatex: TeX's special characters
// escaped, and the non-ASCII symbols balloc's labels use in math mode.
var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`,
	`%`, `\%`, `_`, `\_`, `^`, `\^{}`, `~`, `\~{}`,
	"−", "$-$", "–", "--", "×", `$\times$`, "·", `$\cdot$`, "≥", `$\geq$`, "≤", `$\leq$`,
	"σ", `$\sigma$`, "β", `$\beta$`, "α", `$\alpha$`, "Φ", `$\Phi$`, "²", `$^2$`, "√", `$\surd$`,
)

// TeXText is s as LaTeX text, as the .tex figure writes its title, labels
// and legend: special characters escaped, Greek letters as math, any other
// non-ASCII rune a question mark.
func TeXText(s string) string {
	s = texReplacer.Replace(texPower.ReplaceAllString(s, "\x00$1\x01"))
	s = strings.NewReplacer("\x00", "$^{", "\x01", "}$").Replace(s)
	// Any other non-ASCII rune would stop pdflatex: write it as a question mark.
	return strings.Map(func(r rune) rune {
		if r > 127 {
			return '?'
		}
		return r
	}, s)
}
