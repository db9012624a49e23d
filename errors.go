package balloc

import (
	"errors"
	"fmt"
	"regexp"
)

// The model (package core) refuses a spec in the command's words, naming
// flags: `--d "0": want an integer in [1, min(bins, 1048576)]`. goError
// says the same in this package's: `balloc: parameter d = 0: want an
// integer in …`, every flag by the Config field or parameter that sets it.

// fieldOf is the Config field each common flag sets.
var fieldOf = map[string]string{
	"bins": "Bins", "balls": "Balls", "trials": "Trials", "seed": "Seed", "engine": "Engine",
	"checkpoints": "Checkpoints", "alpha": "Alpha", "initial": "Initial", "loads": "KeepLoads",
	"theory": "Theory", "process": "Process", "balls-per-bin": "Balls",
	"arrival-rate": "Supermarket.ArrivalRate", "time": "Supermarket.Time", "events": "Supermarket.Events",
	"warmup": "Supermarket.Warmup", "update-period": "Supermarket.UpdatePeriod",
	"update-delay": "Supermarket.UpdateDelay", "update-individual": "Supermarket.UpdateIndividual",
	"delete-prob": "Deletions.Prob", "delete": "Deletions.Mode", "phases": "Deletions.Phases",
}

var (
	// leadFlag is a message's culprit: `--name "value": `, `--name value: `
	// or `--name: `.
	leadFlag = regexp.MustCompile(`^--([a-z][a-z0-9-]*)(?: ("(?:[^"\\]|\\.)*"|[^\s:"]+))?: `)
	anyFlag  = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)
)

// goError rewrites a refusal of package core in Go terms; params are the
// values the user gave, shown as given.
func goError(err error, params Params) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := leadFlag.FindStringSubmatch(msg); m != nil {
		name, value := goName(m[1]), m[2]
		if v, ok := params[m[1]]; ok {
			value = fmt.Sprintf("%#v", v)
		}
		head := name
		if value != "" {
			head += " = " + value
		}
		msg = head + ": " + msg[len(m[0]):]
	}
	msg = anyFlag.ReplaceAllStringFunc(msg, func(f string) string { return goName(f[2:]) })
	return errors.New("balloc: " + msg)
}

// goName is what sets a flag's value in this package: a Config field, or
// a process parameter.
func goName(flag string) string {
	if f, ok := fieldOf[flag]; ok {
		return f
	}
	return "parameter " + flag
}
