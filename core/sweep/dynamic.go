package sweep

import (
	"strings"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// dynamicKeys are a sweep file's keys for balls that leave, one value each,
// as balloc run's flags of the same names with dashes (core/dynamic.go):
//
//	arrival_rate = 0.9      # the supermarket model; then time or events, not balls
//	time         = 1000
//	warmup       = 100
//	update_period = 2       # the periodic update board
//	update_delay = 2        # or the loads exactly 2 time units old
//	update_individual = 2   # or entries refreshed each at rate 1/2
//	delete_prob  = 0.25     # deletions; balls counts steps
//	delete       = "ball"
//	phases       = "+1e6,-5e5,+1e6"  # deletions in phases; balls may be left out
var dynamicKeys = []string{"arrival_rate", "time", "events", "warmup", "update_period", "update_delay", "update_individual", "delete_prob", "delete", "phases"}

// readDynamic sets com.Dynamic from the file's dynamic keys: one reads a
// key's single value (def when absent), bad names the key.
func readDynamic(raw map[string]any, one func(key, def string) (string, error), bad func(key, format string, a ...any) error, com *core.Common) error {
	d := &com.Dynamic
	real := func(key string, dst *float64, rule func(float64) string) error {
		if raw[key] == nil {
			return nil
		}
		v, err := one(key, "")
		if err != nil {
			return err
		}
		x, err := process.ParseReal(v)
		if err != nil {
			return bad(key, "%v", err)
		}
		if why := rule(x); why != "" {
			return bad(key, "%s", why)
		}
		*dst = x
		return nil
	}
	if err := real("arrival_rate", &d.ArrivalRate, core.ArrivalRateRule); err != nil {
		return err
	}
	if err := real("time", &d.Time, core.TimeRule); err != nil {
		return err
	}
	if err := real("warmup", &d.Warmup, core.TimeRule); err != nil {
		return err
	}
	if err := real("update_period", &d.UpdatePeriod, core.TimeRule); err != nil {
		return err
	}
	if err := real("update_delay", &d.UpdateDelay, core.TimeRule); err != nil {
		return err
	}
	if err := real("update_individual", &d.UpdateIndividual, core.TimeRule); err != nil {
		return err
	}
	if err := real("delete_prob", &d.DeleteProb, core.DeleteProbRule); err != nil {
		return err
	}
	if raw["events"] != nil {
		v, err := one("events", "")
		if err != nil {
			return err
		}
		if d.Events, err = units.ParseCount(v); err != nil || d.Events == 0 {
			return bad("events", "want a count of events, at least 1")
		}
	}
	if raw["phases"] != nil {
		v, err := one("phases", "")
		if err != nil {
			return err
		}
		if d.Phases, err = core.ParsePhases(v); err != nil {
			return bad("phases", "%v", err)
		}
	}
	if raw["delete"] != nil {
		v, err := one("delete", "")
		if err != nil {
			return err
		}
		if why := core.DeleteRule(v); why != "" {
			return bad("delete", "%s", why)
		}
		if raw["delete_prob"] == nil && raw["phases"] == nil {
			return bad("delete", "it says which ball a deletion removes; set delete_prob or phases")
		}
		d.Delete = v
	}
	return nil
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
