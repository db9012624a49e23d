package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Extra is a block of figures that some processes add to a trial's Result
// beyond the measures every trial has: IDEA's retries and estimates, the
// probes of threshold and adaptive, the bins sampled by the processes whose
// steps place several balls, rbb's rounds. Its Kind says how every output
// writes it — its JSON key, its CSV columns, its table block — so output
// code runs over the kinds and never names a process or a block. A process
// declares the kinds its results carry in its catalogue entry
// (process.Entry.Reports), so a CSV header knows its columns before the
// first trial ends.
type Extra interface{ Kind() *Kind }

// Kind is one kind of Extra.
type Kind struct {
	// Key is the block's key in a Result's JSON.
	Key string
	// Rank orders the kinds in JSON, CSV and the table; initialBallsRank
	// is where the Result's own initial_balls stands among them.
	Rank int
	// Columns are the block's CSV columns, after the common ones (none:
	// CSV leaves the block out), and Row its values in them: blank for a
	// result without the block (x nil).
	Columns []string
	Row     func(x Extra) []string
	// Decode reads the block back from its JSON value.
	Decode func(data []byte) (Extra, error)
	// NewTally accumulates one spec's trials for the table; Table writes
	// the block for the specs of a run, in run order (nothing when no spec
	// has figures). Nil when the table shows no block.
	NewTally func() Tally
	Table    func(w io.Writer, rows []TallyRow)
}

// Tally accumulates the block of one spec's trials: Add sees every trial of
// the spec, those without the block included.
type Tally interface{ Add(r *Result) }

// TallyRow is one spec's line in a table block: its process and
// parameters as the main table names them, and its tally.
type TallyRow struct {
	Process, Params string
	Tally           Tally
}

// Timed is an extra whose rates the trial's time sets (rbb's rounds a
// second): Timed returns what balls_per_s counts for its trials.
type Timed interface {
	Timed(elapsedS float64) (ballsPerS float64)
}

// initialBallsRank places initial_balls among the extras in JSON: after
// samples, before rbb's rounds.
const initialBallsRank = 35

var kinds []*Kind

// register adds a kind; each kind's file calls it when declaring its var.
func register(k *Kind) *Kind {
	for _, o := range kinds {
		if o.Key == k.Key || o.Rank == k.Rank || k.Rank == initialBallsRank {
			panic("result: extra kind " + k.Key + " registered twice, or at the rank of " + o.Key)
		}
	}
	kinds = append(kinds, k)
	slices.SortFunc(kinds, func(a, b *Kind) int { return a.Rank - b.Rank })
	return k
}

// Kinds returns every kind of extra, in rank order.
func Kinds() []*Kind { return slices.Clone(kinds) }

// Add puts x into r, in rank order, in place of a block of its kind.
func (r *Result) Add(x Extra) {
	k := x.Kind()
	i := slices.IndexFunc(r.Extras, func(y Extra) bool { return y.Kind().Rank >= k.Rank })
	switch {
	case i < 0:
		r.Extras = append(r.Extras, x)
	case r.Extras[i].Kind() == k:
		r.Extras[i] = x
	default:
		r.Extras = slices.Insert(r.Extras, i, x)
	}
}

// Extra returns r's block of kind k, nil when it has none.
func (r *Result) Extra(k *Kind) Extra {
	for _, x := range r.Extras {
		if x.Kind() == k {
			return x
		}
	}
	return nil
}

// Extras are a Result's extra blocks, in rank order. encoding/json alone
// cannot place them among the Result's fields when writing: a MarshalJSON
// on Result would be taken by every type that embeds *Result (as
// concurrency.Result does), which would lose its own fields. So Encode
// writes a Result, and plain json.Marshal of a Result that holds extras
// fails rather than drop them. Reading has no such trap for the types that
// are read back (Result itself, in results files): UnmarshalJSON reads the
// extras by their kinds' keys.
type Extras []Extra

// MarshalJSON refuses: Encode writes a Result's extras.
func (x Extras) MarshalJSON() ([]byte, error) {
	return nil, fmt.Errorf("result: a Result with extra blocks (%s, …) is written by result.Encode", x[0].Kind().Key)
}

// Encode writes r as JSON: its fields in order, and its extras by rank where
// their fields stood in the Result of earlier versions (after spec_hash,
// initial_balls at initialBallsRank, dynamic last), so results files keep
// their bytes.
func Encode(r *Result) ([]byte, error) {
	head := *r
	head.Extras, head.InitialBalls, head.Dynamic = nil, 0, nil
	b, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	field := func(key string, v any) error {
		x, err := json.Marshal(v)
		b = append(append(append(b, ",\""...), key...), "\":"...)
		b = append(b, x...)
		return err
	}
	initial := func() error {
		if r.InitialBalls == 0 {
			return nil
		}
		return field("initial_balls", r.InitialBalls)
	}
	done := false
	for _, x := range r.Extras {
		k := x.Kind()
		if !done && k.Rank > initialBallsRank {
			if err := initial(); err != nil {
				return nil, err
			}
			done = true
		}
		if err := field(k.Key, x); err != nil {
			return nil, fmt.Errorf("%s: %v", k.Key, err)
		}
	}
	if !done {
		if err := initial(); err != nil {
			return nil, err
		}
	}
	if r.Dynamic != nil {
		if err := field("dynamic", r.Dynamic); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// resultFields is Result without its methods, for UnmarshalJSON.
type resultFields Result

// UnmarshalJSON reads a Result written by Encode, its extras by their
// kinds' keys.
func (r *Result) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*resultFields)(r)); err != nil {
		return err
	}
	r.Extras = nil
	var fields map[string]json.RawMessage
	for _, k := range kinds {
		if !bytes.Contains(data, []byte(`"`+k.Key+`"`)) {
			continue // the common case: no block of this kind, no second parse
		}
		if fields == nil {
			if err := json.Unmarshal(data, &fields); err != nil {
				return err
			}
		}
		if v, ok := fields[k.Key]; ok && string(v) != "null" {
			x, err := k.Decode(v)
			if err != nil {
				return fmt.Errorf("%s: %v", k.Key, err)
			}
			r.Add(x)
		}
	}
	return nil
}

// decodeInto is a Kind's Decode for a block that is a JSON object of type T.
func decodeInto[T any, P interface {
	*T
	Extra
}](data []byte) (Extra, error) {
	x := P(new(T))
	return x, json.Unmarshal(data, x)
}
