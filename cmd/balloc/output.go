package main

import (
	"io"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/output"
)

// writer formats results as they arrive, in trial order, and keeps
// nothing per trial: jsonl, csv and json stream (output.Stream), the table
// accumulates a summary per spec (output.Table). Only --plot keeps the
// trials, trimmed to what a plot reads.
type writer struct {
	p      *plan
	out    io.Writer
	stream *output.Stream     // json, jsonl, csv
	table  *output.Table      // table
	fluids *output.Fluids     // --theory in json and jsonl
	kept   [][]*result.Result // by spec, for --plot
}

func newWriter(p *plan, out io.Writer) *writer {
	w := &writer{p: p, out: out, kept: make([][]*result.Result, len(p.specs)), fluids: output.NewFluids(p.specs)}
	if p.format == "table" {
		w.table = output.NewTable(p.specs, p.workers, p.theory)
		return w
	}
	st, err := output.NewStream(out, p.format, p.specs)
	if err != nil {
		panic(err) // validate accepted only table and output.Formats
	}
	w.stream = st
	return w
}

func (w *writer) add(spec int, r *result.Result) error {
	s := w.p.specs[spec]
	if w.p.theory && w.p.format != "table" && s.Dynamic.Supermarket() {
		r.Dynamic.FixedPoint, _ = core.SupermarketTheory(s)
	}
	if w.p.theory && w.p.format != "table" {
		if prof, ok := w.fluids.Of(spec); ok {
			r.Theory = result.CompareTheory(prof, s.Bins, []result.Histogram{r.Histogram})
		}
	}
	if w.p.plot != "" {
		w.kept[spec] = append(w.kept[spec], plotted(r, w.p.plotOpts.Kind))
	}
	if w.stream != nil {
		return w.stream.Write(r)
	}
	w.table.Add(spec, r)
	return nil
}

// plotted is what --plot reads of a result: the gaps, the average, the bins,
// and the checkpoints or histogram where the kind draws them.
func plotted(r *result.Result, kind string) *result.Result {
	k := &result.Result{Gap: r.Gap, MaxGap: r.MaxGap, Average: r.Average, Bins: r.Bins}
	switch kind {
	case "gap-vs-balls":
		k.Checkpoints = r.Checkpoints
	case "load-histogram":
		k.Histogram = r.Histogram
	}
	if r.Dynamic != nil { // --y mean-queue reads the model and the queue
		k.Dynamic = &result.Dynamic{Model: r.Dynamic.Model, MeanQueue: r.Dynamic.MeanQueue}
	}
	return k
}

func (w *writer) finish() error {
	if w.stream != nil {
		return w.stream.Finish()
	}
	return w.table.Write(w.out)
}

// csvHeader are the columns every CSV row has (output.CSVHeader).
var csvHeader = output.CSVHeader
