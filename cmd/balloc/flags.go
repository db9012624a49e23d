package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// onceValue is a flag's value that takes one non-empty setting. pflag lets a
// repeated flag keep its last value (--bins 1000 --bins 2000 ran 2000) and an
// empty one stand for the default (--engine ” ran auto); both silently change
// what a user asked for, so each is refused, naming the flag. Lists are one
// comma-separated value (--g 0,1,2).
type onceValue struct {
	pflag.Value
	name  string
	first string
	set   bool
}

// flagError is the refusal of a flag's value; Main prints it as it is,
// without pflag's "invalid argument" wrapping.
type flagError struct{ msg string }

func (e flagError) Error() string { return e.msg }

func (v *onceValue) Set(s string) error {
	if v.set {
		msg := fmt.Sprintf("flag --%s given twice (%q, then %q): give it once", v.name, v.first, s)
		if !v.IsBoolFlag() {
			msg += "; a list is one comma-separated value"
		}
		return flagError{msg}
	}
	if s == "" {
		msg := fmt.Sprintf("flag --%s is empty: give a value or leave the flag out", v.name)
		if d := v.Value.String(); d != "" {
			msg += " (default " + d + ")"
		}
		return flagError{msg}
	}
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.first, v.set = s, true
	return nil
}

// IsBoolFlag keeps a boolean flag boolean for pflag (--theory alone means true).
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// strictFlags makes every flag of c and of the commands below it a
// onceValue, so that no subcommand is missed. A flag keeps its Type, String
// and boolean-ness, so cobra's GetString, GetBool, help and --theory without
// a value read it as before. Cobra adds --help only when a command runs,
// after this, so --help keeps pflag's rules.
func strictFlags(c *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if _, done := f.Value.(*onceValue); !done {
			f.Value = &onceValue{Value: f.Value, name: f.Name}
		}
	}
	c.Flags().VisitAll(wrap)
	c.PersistentFlags().VisitAll(wrap)
	for _, sub := range c.Commands() {
		strictFlags(sub)
	}
}
