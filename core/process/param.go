package process

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"
)

// Param is one parameter of a process, bound to a field of the process
// value that declares it: it parses and validates its own value.
type Param struct {
	Name     string
	Usage    string // for the process's section of balloc run --help
	Default  string // used when the flag is absent; "" means required
	Required string // what to tell a user who left a required one out
	List     bool   // balloc run accepts a comma-separated list of values
	Bool     bool   // true or false; the bare flag means true

	set   func(v string) error
	value func() any
	// when, if set, says from the raw values of a combination (or the
	// defaults) whether the parameter applies; only is the error when it
	// is given where it never does.
	when func(get func(string) string) bool
	only string
	// shown, if set, says whether the value belongs in the results'
	// parameters: false when unused, or the default that changes nothing.
	shown func() bool
	// optional: a parameter without a default that may stay unset (its
	// Check decides, e.g. tau-delay's --tau with --delay replay).
	optional func() bool
	// setting: the parameter is a setting this process shares with the one
	// that defines it (--tau of d-choice, tau-delay's): help lists it there.
	setting bool
}

// AsSetting marks a parameter as a setting borrowed from another process.
func (p *Param) AsSetting() *Param { p.setting = true; return p }

// IsSetting reports whether AsSetting marked the parameter.
func (p *Param) IsSetting() bool { return p.setting }

// Set parses v into the parameter's field.
func (p *Param) Set(v string) error { return p.set(v) }

// Value is the parameter's value, typed, for results.
func (p *Param) Value() any { return p.value() }

// Shown reports whether the value goes into the results' parameters.
func (p *Param) Shown() bool { return p.shown == nil || p.shown() }

// Def sets the default value.
func (p *Param) Def(v string) *Param { p.Default = v; return p }

// Listed lets balloc run take a comma-separated list of values.
func (p *Param) Listed() *Param { p.List = true; return p }

// Need says what to tell a user who left the parameter out (no default).
func (p *Param) Need(text string) *Param { p.Required = text; return p }

// ShownWhen sets when the value goes into the results' parameters.
func (p *Param) ShownWhen(f func() bool) *Param { p.shown = f; return p }

// OptionalWhen lets a parameter without a default stay unset when f holds
// (after the given parameters are set).
func (p *Param) OptionalWhen(f func() bool) *Param { p.optional = f; return p }

// AppliesWhen says, from a combination's raw values, when the parameter
// applies, and the error for giving it where it does not.
func (p *Param) AppliesWhen(f func(get func(string) string) bool, only string) *Param {
	p.when, p.only = f, only
	return p
}

// Custom is a parameter with its own parser and value.
func Custom(name, usage string, set func(string) error, value func() any) *Param {
	return &Param{Name: name, Usage: usage, set: set, value: value}
}

// Real is a real-valued parameter; ok says which values are valid and want
// what the error asks for.
func Real(name, usage string, dst *float64, ok func(float64) bool, want string) *Param {
	return Custom(name, usage, func(v string) error {
		x, err := ParseReal(v)
		if err != nil || !ok(x) {
			return fmt.Errorf("--%s %q: want %s", name, v, want)
		}
		*dst = x
		return nil
	}, func() any { return *dst })
}

// Int is an integer parameter in [lo, hi].
func Int(name, usage string, dst *int, lo, hi int) *Param {
	return IntWant(name, usage, dst, lo, hi, fmt.Sprintf("an integer in [%d, %d]", lo, hi))
}

// IntWant is Int with its own words for the valid range.
func IntWant(name, usage string, dst *int, lo, hi int, want string) *Param {
	return Custom(name, usage, func(v string) error {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < int64(lo) || x > int64(hi) {
			return fmt.Errorf("--%s %q: want %s", name, v, want)
		}
		*dst = int(x)
		return nil
	}, func() any { return *dst })
}

// Count is a count parameter (as --balls reads it: 1e6, 2^20, 1_000) of at
// least lo.
func Count(name, usage string, dst *uint64, lo uint64, below string) *Param {
	return Custom(name, usage, func(v string) error {
		x, err := units.ParseCount(v)
		if err != nil {
			return fmt.Errorf("--%s %v", name, err)
		}
		if x < lo {
			return fmt.Errorf("--%s %d: %s", name, x, below)
		}
		*dst = x
		return nil
	}, func() any { return *dst })
}

// Choice is a parameter taking one of the named values.
func Choice(name, usage string, dst *string, values ...string) *Param {
	return Custom(name, usage, func(v string) error {
		if !slices.Contains(values, v) {
			return fmt.Errorf("--%s %q: want %s", name, v, OrList(values))
		}
		*dst = v
		return nil
	}, func() any { return *dst })
}

// Bool is a true-or-false parameter; the bare flag means true.
func Bool(name, usage string, dst *bool) *Param {
	p := Custom(name, usage, func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("--%s %q: want true or false", name, v)
		}
		*dst = b
		return nil
	}, func() any { return *dst })
	p.Bool = true
	return p
}

// OrList writes "a, b or c".
func OrList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// ParseReal accepts a finite decimal or exponent-form real number.
func ParseReal(v string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("not a finite real number")
	}
	return x, nil
}

// Flag is a process parameter as a command-line flag: the union over the
// catalogue of the parameters of one name, in the words of the first
// process (by catalogue order) that takes it, unless flagUsage has words
// for all of them.
type Flag struct {
	Name, Usage, Default string
	List, Bool           bool
	order                int // the catalogue order of the process whose words it has
}

var flags []*Flag // in flag order; Default is "" where processes differ

// flagOrder is the order of the parameters in flags and in results' text
// ("d=2 beta=0.5"); a parameter not listed follows, in registration order.
var flagOrder = []string{"d", "beta", "threshold", "weights", "g", "adversary", "sigma", "rho", "tau", "delay", "ages", "replay", "batch",
	"graph", "strategy", "stale", "haar-scale", "haar-route", "graph-clean", "group-size", "aligned", "group-rule", "hyperedges", "probe-all", "refresh",
	"retries", "variant", "sample-size", "sample-rule", "held", "dims", "populated", "vector-gap"}

// flagUsage is the flag's usage for parameters several processes share,
// in words that name no process: Flags appends the processes that take the
// flag, from the catalogue. An empty text means the meaning differs by
// process: the flag's usage is then each process's own words; sameWords
// means every process words it alike (a shared constructor), and those
// words serve. The other parameters use their one process's words.
var flagUsage = map[string]string{
	"k":           "",
	"ties":        sameWords,
	"distinct":    sameWords,
	"sampling":    sameWords,
	"d":           "samples per ball (per round, per step, beside a cache, or groups, as each process says), 1 ≤ d ≤ bins; default 2 unless the process says otherwise",
	"g":           "comparisons of loads differing by at most g are noisy, g ≥ 0",
	"batch":       "balls per batch b ≥ 1: every ball of a batch decides on the loads at the batch's start (default 1: none)",
	"tau":         "τ-Delay: every load read may be up to τ balls old, 0 ≤ τ < 2^32 − 1 (default 0: none; --delay says how old, and some processes take --delay fixed only)",
	"delay":       "with --tau: how old each read is: fixed (τ), uniform (in [0, τ]), adversarial, empirical (drawn from --ages) or replay (one age per ball, from --replay)",
	"ages":        "--delay empirical: a file of \"age count\" lines, the law of read ages in balls",
	"replay":      "--delay replay: a file of ages in balls, one per ball in ball order (balloc concurrent --save-ages writes one)",
	"graph-clean": "self-loops and duplicate edges in a --graph or --hyperedges file: refuse (an error) or drop",
	"dims":        "dimensions D of each ball, 1 ≤ D ≤ 64 (1: scalar balls)",
	"populated":   "with --dims: populated dimensions f of each ball, chosen uniformly, 1 ≤ f ≤ dims",
}

// sameWords marks a shared flag whose processes word it alike.
const sameWords = "\x00same"

func orderOf(name string) int {
	if i := slices.Index(flagOrder, name); i >= 0 {
		return i
	}
	return len(flagOrder)
}

func addFlag(e *Entry, p *Param) {
	for _, f := range flags {
		if f.Name != p.Name {
			continue
		}
		if f.List != p.List || f.Bool != p.Bool {
			panic(fmt.Sprintf("process: %s's --%s disagrees with another process's in list or bool", e.Name, p.Name))
		}
		if f.Default != p.Default {
			f.Default = "" // it differs by process: its usage says so
		}
		if _, shared := flagUsage[p.Name]; !shared && e.Order < f.order {
			f.Usage, f.order = p.Usage, e.Order
		}
		return
	}
	usage := p.Usage
	if u, ok := flagUsage[p.Name]; ok && u != sameWords {
		usage = u
	}
	flags = append(flags, &Flag{Name: p.Name, Usage: usage, Default: p.Default, List: p.List, Bool: p.Bool, order: e.Order})
	slices.SortStableFunc(flags, func(a, b *Flag) int { return orderOf(a.Name) - orderOf(b.Name) })
}

// Flags lists every process parameter as a flag, in flag order, --weights
// among them.
func Flags() []Flag {
	var out []Flag
	for _, f := range flags {
		out = append(out, withTakers(*f))
	}
	return out
}

// FlagOf returns the flag of a parameter name, or nil.
func FlagOf(name string) *Flag {
	for _, f := range flags {
		if f.Name == name {
			c := withTakers(*f)
			return &c
		}
	}
	return nil
}

// withTakers completes a shared flag's usage from the catalogue: the
// processes that take it, or, where its meaning differs by process, each
// one's own words.
func withTakers(f Flag) Flag {
	words, shared := flagUsage[f.Name]
	if !shared {
		return f
	}
	var takers, own []string
	for _, e := range registry {
		for _, q := range e.New().Params() {
			if q.Name != f.Name {
				continue
			}
			takers = append(takers, e.Name)
			u := q.Usage
			if !strings.HasPrefix(u, e.Name+":") {
				u = e.Name + ": " + u
			}
			own = append(own, u)
		}
	}
	switch words {
	case "":
		f.Usage = strings.Join(own, "; ")
	case sameWords:
		f.Usage += "; processes: " + AndList(takers)
	default:
		f.Usage = words + "; processes: " + AndList(takers)
	}
	return f
}

// AndList writes "a, b and c".
func AndList(values []string) string {
	if len(values) <= 1 {
		return strings.Join(values, "")
	}
	return strings.Join(values[:len(values)-1], ", ") + " and " + values[len(values)-1]
}

// NamesWhere lists, in catalogue order, the processes whose value at its
// defaults satisfies keep: for messages that name the processes a setting
// or a command runs, so that the list follows the catalogue.
func NamesWhere(keep func(Process) bool) []string {
	var names []string
	for _, e := range registry {
		if keep(e.New()) {
			names = append(names, e.Name)
		}
	}
	return names
}

func init() {
	addFlag(&Entry{Name: "weights"}, WeightsParam(new(Weights)))
}

// Apply sets the parameters of p the user gave (by flag name, without
// dashes), then every other at its default, and reports a required one left
// out. weights receives --weights for a weighted process.
func Apply(p Process, set map[string]string, weights *Weights) error {
	e := p.Entry()
	params := p.Params()
	if e.Weighted {
		params = append(params, WeightsParam(weights))
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if FlagOf(name) == nil {
			return fmt.Errorf("--%s is not a process parameter", name)
		}
		i := slices.IndexFunc(params, func(q *Param) bool { return q.Name == name })
		if i < 0 {
			return fmt.Errorf("--%s does not apply to %s (%s)", name, e.Name, e.TakesText())
		}
		if err := params[i].set(set[name]); err != nil {
			return err
		}
	}
	for _, q := range params {
		if _, ok := set[q.Name]; ok {
			continue
		}
		if q.Default == "" {
			if q.optional != nil && q.optional() {
				continue
			}
			return fmt.Errorf("%s needs --%s: %s", e.Name, q.Name, q.Required)
		}
		if err := q.set(q.Default); err != nil {
			panic(err) // defaults are constants and must parse
		}
	}
	return nil
}

// Values returns the parameters p uses, by name, for results: the fixed
// values of an alias, the shown parameters, and --weights unless unit.
func Values(p Process, weights Weights) map[string]any {
	m := map[string]any{}
	for k, v := range p.Entry().Fixed {
		m[k] = v
	}
	for _, q := range p.Params() {
		if q.Shown() {
			m[q.Name] = q.value()
		}
	}
	if p.Entry().Weighted && weights.Kind != WeightsUnit {
		m["weights"] = weights.String()
	}
	return m
}

// ValuesText is Values as "d=2 beta=0.5", in flag order.
func ValuesText(m map[string]any) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if d := orderOf(a) - orderOf(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, " ")
}
