package engine

import (
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/units"
)

// A run whose checkpoints or JSON could not fit is refused naming what
// drives it; a small one passes.
func TestCheckRunNamesTheCulprit(t *testing.T) {
	if units.MemoryLimit().Bytes == 0 {
		t.Skip("no memory limit known here")
	}
	spec := func(cks uint64) *core.Spec {
		s, err := core.NewSpec("two-choice", nil, core.Common{Bins: 100, Balls: 1e12, Checkpoints: cks, Trials: 1, Seed: 1, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := CheckRun([]*core.Spec{spec(10)}, RunUse{Workers: 1, Jobs: 1, Format: "json"}); err != nil {
		t.Errorf("10 checkpoints refused: %v", err)
	}
	err := CheckRun([]*core.Spec{spec(1e12)}, RunUse{Workers: 1, Jobs: 1, Format: "csv"})
	if err == nil || !strings.HasPrefix(err.Error(), "--checkpoints 1e12: a trial needs") {
		t.Errorf("10^12 checkpoints: %v", err)
	}
	err = CheckRun([]*core.Spec{spec(1e11)}, RunUse{Workers: 1, Jobs: 1, Format: "json"})
	if err == nil || !strings.Contains(err.Error(), "to write a result as json") || !strings.Contains(err.Error(), "or use --format csv") {
		t.Errorf("10^11 checkpoints as JSON: %v", err)
	}
}
