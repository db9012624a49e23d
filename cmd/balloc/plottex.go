package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/balloc/balloc/internal/files"
)

// writeTex writes f as a standalone pgfplots file: pdflatex compiles it as
// it is, and the \addplot coordinates are the figure's numbers, for a
// paper's own axis options.
func writeTex(f *figure, out *files.Output) error {
	return out.Write(func(w io.Writer) error {
		b := bufio.NewWriter(w)
		texFigure(b, f)
		return b.Flush()
	})
}

// texNum writes a coordinate exactly enough to read back the same float64.
func texNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func texFigure(w *bufio.Writer, f *figure) {
	fmt.Fprintln(w, `% Written by balloc plot: a standalone pgfplots figure (pdflatex compiles it as it is).`)
	fmt.Fprintln(w, `% Each \addplot lists the plotted coordinates; "+- (0,e)" is the half-width of a 95% CI.`)
	fmt.Fprintln(w, `\documentclass[tikz]{standalone}`)
	fmt.Fprintln(w, `\usepackage{pgfplots}`)
	fmt.Fprintln(w, `\pgfplotsset{compat=1.14}`)
	used := map[int]bool{}
	for _, s := range f.series {
		used[s.style%len(palette)] = true
	}
	for k, c := range palette {
		if used[k] {
			fmt.Fprintf(w, "\\definecolor{balloc%c}{RGB}{%d,%d,%d}\n", 'A'+k, c.R, c.G, c.B)
		}
	}
	fmt.Fprintln(w, `\begin{document}`)
	fmt.Fprintln(w, `\begin{tikzpicture}`)
	opts := []string{
		"width=14cm", "height=8.5cm", "grid=major",
		"title={" + texText(f.title) + "}",
		"xlabel={" + texText(f.xLabel) + "}",
		"ylabel={" + texText(f.yLabel) + "}",
		"legend pos=outer north east", "legend cell align=left", `legend style={font=\footnotesize}`,
	}
	if f.logX {
		opts = append(opts, "xmode=log", "log basis x=10")
	}
	if f.logY {
		opts = append(opts, "ymode=log", "log basis y=10")
	}
	if f.bars {
		n := len(f.series)
		opts = append(opts, "ybar", fmt.Sprintf("bar width=%.2gpt", max(1.5, 30/float64(n))), "xtick=data", "ymin=0", "enlarge x limits=0.08")
	}
	fmt.Fprintf(w, "\\begin{axis}[\n  %s,\n]\n", strings.Join(opts, ",\n  "))
	for _, s := range f.series {
		color := fmt.Sprintf("balloc%c", 'A'+s.style%len(palette))
		if f.bands && !s.theory && !f.bars {
			fmt.Fprintf(w, "\\addplot[draw=none, fill=%s, fill opacity=0.2, forget plot] coordinates {", color)
			for _, p := range s.pts {
				fmt.Fprintf(w, " (%s,%s)", texNum(p.X), texNum(p.Lo))
			}
			for i := len(s.pts) - 1; i >= 0; i-- {
				fmt.Fprintf(w, " (%s,%s)", texNum(s.pts[i].X), texNum(s.pts[i].Hi))
			}
			fmt.Fprintln(w, " };")
		}
		var style []string
		switch {
		case f.bars:
			style = []string{"draw=none", "fill=" + color}
		case s.theory:
			style = []string{color, "thin", "dashed", "mark=none"}
		default:
			style = []string{color, "thick", texDash(s.style)}
			if s.marks {
				style = append(style, "mark="+texMark(s.style), "mark options={solid}")
			} else {
				style = append(style, "mark=none")
			}
		}
		errs := false
		for _, p := range s.pts {
			errs = errs || p.Err > 0
		}
		if errs {
			style = append(style, "error bars/.cd", "y dir=both", "y explicit", "error bar style={solid}")
		}
		fmt.Fprintf(w, "\\addplot[%s] coordinates {\n", strings.Join(style, ", "))
		for _, p := range s.pts {
			if errs {
				fmt.Fprintf(w, "  (%s,%s) +- (0,%s)\n", texNum(p.X), texNum(p.Y), texNum(p.Err))
			} else {
				fmt.Fprintf(w, "  (%s,%s)\n", texNum(p.X), texNum(p.Y))
			}
		}
		fmt.Fprintln(w, "};")
		fmt.Fprintf(w, "\\addlegendentry{%s}\n", texText(s.label))
	}
	fmt.Fprintln(w, `\end{axis}`)
	fmt.Fprintln(w, `\end{tikzpicture}`)
	fmt.Fprintln(w, `\end{document}`)
}

// texDash: solid for the first round of colours, then the dash patterns.
func texDash(style int) string {
	return []string{"solid", "dashed", "dotted", "dashdotted", "densely dashed", "loosely dotted"}[style/len(palette)%6]
}

func texMark(style int) string {
	return []string{"*", "square*", "triangle*", "diamond*", "o", "square"}[style/len(palette)%6]
}

// texReplacer makes labels safe for pdflatex: TeX's special characters
// escaped, and the non-ASCII symbols balloc's labels use in math mode.
var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`,
	`%`, `\%`, `_`, `\_`, `^`, `\^{}`, `~`, `\~{}`,
	"−", "$-$", "–", "--", "×", `$\times$`, "·", `$\cdot$`, "≥", `$\geq$`, "≤", `$\leq$`,
	"σ", `$\sigma$`, "β", `$\beta$`, "α", `$\alpha$`, "Φ", `$\Phi$`, "²", `$^2$`, "√", `$\surd$`,
)

func texText(s string) string {
	s = texReplacer.Replace(s)
	// Any other non-ASCII rune would stop pdflatex: write it as a question mark.
	return strings.Map(func(r rune) rune {
		if r > 127 {
			return '?'
		}
		return r
	}, s)
}
