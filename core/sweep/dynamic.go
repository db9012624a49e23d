package sweep

import (
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// dynamicKeys are a sweep file's keys for balls that leave, as balloc run's
// flags of the same names with dashes (core/dynamic.go). Each takes a value
// or a list, like a parameter: the grid runs every combination of the
// values (the product, the first key here varying slowest), inside each
// combination of process, bins, balls and parameters.
//
//	arrival_rate = 0.9      # the supermarket model; then time or events, not balls
//	time         = 1000
//	warmup       = 100
//	update_period = [0.5, 1, 2]  # the periodic update board
//	update_delay = 2        # or the loads exactly 2 time units old
//	update_individual = 2   # or entries refreshed each at rate 1/2
//	delete_prob  = [0.25, 0.5]   # deletions; balls counts steps
//	delete       = "ball"
//	phases       = "+1e6,-5e5,+1e6"  # deletions in phases; balls may be left out
//
// A file giving one value of each key makes the grid points (and their
// hashes) it always made. As on the command line, 0 leaves a stale key off:
// update_period = [0, 1, 2] runs the fresh-loads point beside the boards
// (on the engine auto picks for it, unless engine is named).
var dynamicKeys = []string{"arrival_rate", "time", "events", "warmup", "update_period", "update_delay", "update_individual", "delete_prob", "delete", "phases"}

// readDynamic reads the file's dynamic keys: list reads a key's values (a
// value or a list, refusing a value listed twice), bad names the key. Each
// value is checked alone here, every combination by core.NewSpec; with no
// dynamic key it returns one cell of no settings.
func readDynamic(raw map[string]any, list func(key string, v any) ([]string, error), bad func(key, format string, a ...any) error) ([]DynamicCell, error) {
	type setter func(d *core.Dynamic, v string) error
	real := func(key string, dst func(*core.Dynamic) *float64, rule func(float64) string) setter {
		return func(d *core.Dynamic, v string) error {
			x, err := process.ParseReal(v)
			if err != nil {
				return bad(key, "%v", err)
			}
			if why := rule(x); why != "" {
				return bad(key, "%s", why)
			}
			*dst(d) = x
			return nil
		}
	}
	set := map[string]setter{
		"arrival_rate":      real("arrival_rate", func(d *core.Dynamic) *float64 { return &d.ArrivalRate }, core.ArrivalRateRule),
		"time":              real("time", func(d *core.Dynamic) *float64 { return &d.Time }, core.TimeRule),
		"warmup":            real("warmup", func(d *core.Dynamic) *float64 { return &d.Warmup }, core.TimeRule),
		"update_period":     real("update_period", func(d *core.Dynamic) *float64 { return &d.UpdatePeriod }, core.TimeRule),
		"update_delay":      real("update_delay", func(d *core.Dynamic) *float64 { return &d.UpdateDelay }, core.TimeRule),
		"update_individual": real("update_individual", func(d *core.Dynamic) *float64 { return &d.UpdateIndividual }, core.TimeRule),
		"delete_prob":       real("delete_prob", func(d *core.Dynamic) *float64 { return &d.DeleteProb }, core.DeleteProbRule),
		"events": func(d *core.Dynamic, v string) (err error) {
			if d.Events, err = units.ParseCount(v); err != nil || d.Events == 0 {
				return bad("events", "want a count of events, at least 1")
			}
			return nil
		},
		"phases": func(d *core.Dynamic, v string) (err error) {
			if d.Phases, err = core.ParsePhases(v); err != nil {
				return bad("phases", "%v", err)
			}
			return nil
		},
		"delete": func(d *core.Dynamic, v string) error {
			if why := core.DeleteRule(v); why != "" {
				return bad("delete", "%s", why)
			}
			d.Delete = v
			return nil
		},
	}
	cells := []DynamicCell{{Values: map[string]string{}}}
	for _, key := range dynamicKeys {
		if raw[key] == nil {
			continue
		}
		vals, err := list(key, raw[key])
		if err != nil {
			return nil, err
		}
		// Every value is checked before any combination is made.
		for _, v := range vals {
			var d core.Dynamic
			if err := set[key](&d, v); err != nil {
				return nil, err
			}
		}
		var next []DynamicCell
		for _, c := range cells {
			for _, v := range vals {
				n := DynamicCell{Settings: c.Settings, Values: map[string]string{key: v}}
				for k, x := range c.Values {
					n.Values[k] = x
				}
				_ = set[key](&n.Settings, v)
				next = append(next, n)
			}
		}
		cells = next
	}
	if raw["delete"] != nil && raw["delete_prob"] == nil && raw["phases"] == nil {
		return nil, bad("delete", "it says which ball a deletion removes; set delete_prob or phases")
	}
	return cells, nil
}

// dynamicKey is the key a NewSpec error blames among the dynamic settings
// ("" when it names none of their flags).
func dynamicKey(msg string) string {
	at, key := len(msg), ""
	for _, k := range dynamicKeys {
		flag := "--" + strings.ReplaceAll(k, "_", "-")
		for _, end := range []string{" ", ":"} {
			if i := strings.Index(msg, flag+end); i >= 0 && i < at {
				at, key = i, k
			}
		}
	}
	if i := strings.Index(msg, "--"); key != "" && i < at {
		return "" // an earlier flag is the culprit
	}
	return key
}
