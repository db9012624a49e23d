package report

import (
	"errors"
	"strings"
	"testing"
)

// A report's errors are in Go terms: they name the argument, never a flag
// of the command, which adds its own (ArgError.Text).
func TestArgErrorsNameNoFlag(t *testing.T) {
	_, err := ParseCrossover("foo")
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "crossover" {
		t.Fatalf("ParseCrossover(foo) = %v, want an *ArgError for crossover", err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("library error names a flag: %v", err)
	}
	if got, want := ae.Text("--crossover"), `--crossover "foo": want KEY=A,B`; !strings.HasPrefix(got, want) {
		t.Errorf("Text = %q, want prefix %q", got, want)
	}
	_, err = ReadReference(t.TempDir() + "/none.toml")
	if !errors.As(err, &ae) || ae.Arg != "compare" || strings.Contains(err.Error(), "--") {
		t.Errorf("ReadReference(missing) = %v, want an *ArgError for compare naming no flag", err)
	}
}
