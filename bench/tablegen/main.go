// Command tablegen turns `go test -bench` output of package bench into the
// Markdown table of bench/README.md: balloc's balls/s beside the naive
// loop's, measured in the same run, and their ratio. With several runs of
// one benchmark (-count), it reports the median.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
)

var line = regexp.MustCompile(`^Benchmark(Direct|Naive)/([^/]+)/(n=[^\s-]+)(?:-\d+)?\s+\d+\s+([0-9.e+]+) balls/s`)

func median(xs []float64) float64 {
	sort.Float64s(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func main() {
	type key struct{ name, size string }
	direct, naive := map[key][]float64{}, map[key][]float64{}
	var order []key
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			continue
		}
		k := key{m[2], m[3]}
		if m[1] == "Direct" {
			if direct[k] == nil {
				order = append(order, k)
			}
			direct[k] = append(direct[k], v)
		} else {
			naive[k] = append(naive[k], v)
		}
	}
	if len(order) == 0 {
		fmt.Fprintln(os.Stderr, "tablegen: no BenchmarkDirect lines on stdin")
		os.Exit(1)
	}
	fmt.Println("| process | bins | balloc (M balls/s) | naive (M balls/s) | ratio |")
	fmt.Println("|---|---|---:|---:|---:|")
	for _, k := range order {
		d := median(direct[k])
		if nv := naive[k]; len(nv) > 0 {
			n := median(nv)
			fmt.Printf("| %s | %s | %.1f | %.1f | %.1f× |\n", k.name, k.size[2:], d/1e6, n/1e6, d/n)
		} else {
			fmt.Printf("| %s | %s | %.1f | – | – |\n", k.name, k.size[2:], d/1e6)
		}
	}
}
