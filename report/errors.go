package report

import "fmt"

// ArgError is a bad argument of a report, in Go terms: Arg names it (the
// reference file of ReadReference and Compare is "compare", the pair of
// ParseCrossover and its checks "crossover", the window of Read
// "gap-from"), Value is the value given, or "" where the message is about
// the argument as a whole. A command names its own flag (balloc writes
// --compare, --crossover, --gap-from).
type ArgError struct {
	Arg, Value, Msg string
}

func (e *ArgError) Error() string { return e.Text(e.Arg) }

// Text is the message with the argument called name.
func (e *ArgError) Text(name string) string {
	if e.Msg == "" { // the message is all in Value (a file's position and what is wrong there)
		return name + " " + e.Value
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", name, e.Msg)
	}
	return fmt.Sprintf("%s %s: %s", name, e.Value, e.Msg)
}

func argError(arg, value, format string, a ...any) error {
	return &ArgError{Arg: arg, Value: value, Msg: fmt.Sprintf(format, a...)}
}
