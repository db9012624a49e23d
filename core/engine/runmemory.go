package engine

import (
	"fmt"
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/units"
)

// Bytes per checkpoint and per load of a result as JSON while it is
// encoded: the text (about 150 and 24 bytes) and the encoder's growing
// buffer and copy.
const (
	jsonCheckpointBytes = 512
	jsonLoadBytes       = 72
)

// RunUse is how a run of trials uses memory besides the trials' own
// state: the trials that run at once, and what each result costs when
// written or kept.
type RunUse struct {
	Workers  int    // trials run at once, at most
	Jobs     int    // trials in all
	Format   string // how results are written: "json" and "jsonl" encode each whole (its checkpoints and loads)
	Plot     string // a file the results are drawn into ("": none), keeping of each trial what PlotKind draws
	PlotKind string
}

// CheckRun refuses a run of specs whose memory would not fit the memory
// limit (units.MemoryLimit), naming the flag of balloc run that drives it:
// at most Workers trials hold their state at once, one result at a time
// is encoded, and a plot keeps what it draws of every trial. Nothing else
// grows with the trials.
func CheckRun(specs []*core.Spec, use RunUse) error {
	mem := units.MemoryLimit()
	avail := mem.Bytes
	if avail == 0 {
		return nil
	}
	var per, out units.Footprint
	var kept uint64
	for _, s := range specs {
		if f := Footprint(s); f.Bytes > per.Bytes || per.Culprit == "" {
			per = f
		}
		var o units.Footprint
		if use.Format == "json" || use.Format == "jsonl" {
			o.Add("--checkpoints "+units.FormatCount(s.Checkpoints), "lower --checkpoints", units.Mul(s.Checkpoints, jsonCheckpointBytes))
			if s.KeepLoads {
				o.Add("--loads", "leave out --loads", units.Mul(s.Bins, jsonLoadBytes))
			}
		}
		if o.Bytes > out.Bytes {
			out = o
		}
		if use.Plot != "" {
			// A trimmed result and what the plot's kind keeps of it.
			k := uint64(512)
			switch use.PlotKind {
			case "gap-vs-balls":
				k = units.Add(k, units.Mul(s.Checkpoints, 56))
			case "load-histogram":
				k += 16 * 4096 // levels: a few hundred for unit loads; generous
			}
			kept = units.Add(kept, units.Mul(k, uint64(s.Trials)))
		}
	}
	concurrent := uint64(min(use.Workers, use.Jobs))
	var all units.Footprint
	hint := per.Hint
	if concurrent > 1 {
		hint += " or --workers"
	}
	all.Add(per.Culprit, hint, units.Mul(per.Bytes, concurrent))
	if out.Bytes > 0 {
		all.Add(out.Culprit, out.Hint+" or use --format csv", out.Bytes)
	}
	if kept > 0 {
		all.Add("--plot "+use.Plot, "lower --trials or leave out --plot", kept)
	}
	if all.Bytes <= avail {
		return nil
	}
	var parts []string
	if concurrent > 1 {
		parts = append(parts, fmt.Sprintf("%s per trial × %d trials at once (--workers)", units.FormatBytes(float64(per.Bytes)), concurrent))
	} else {
		parts = append(parts, fmt.Sprintf("%s for a trial", units.FormatBytes(float64(per.Bytes))))
	}
	if out.Bytes > 0 {
		parts = append(parts, fmt.Sprintf("%s to write a result as %s", units.FormatBytes(float64(out.Bytes)), use.Format))
	}
	if kept > 0 {
		parts = append(parts, fmt.Sprintf("%s to keep every trial for --plot", units.FormatBytes(float64(kept))))
	}
	what := strings.Join(parts, " + ") + " needs " + units.FormatBytes(float64(all.Bytes))
	if len(parts) == 1 && concurrent == 1 {
		what = "a trial needs " + units.FormatBytes(float64(per.Bytes))
	}
	return fmt.Errorf("%s: %s, more than the %v; %s", all.Culprit, what, mem, all.Hint)
}
