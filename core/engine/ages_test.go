package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/balloc/balloc/core"
)

// checkpointMaxGap is a checkpoint's last field in JSON, its max_gap.
var checkpointMaxGap = regexp.MustCompile(`,"max_gap":[^,}]*}`)

// agesDigest runs trials of tau-delay --delay empirical with the ages file
// text and returns a digest of the results (times left out) and the spec's
// hash.
func agesDigest(t *testing.T, text, weights string) (digest, hash string) {
	t.Helper()
	t.Chdir(t.TempDir())
	path := "ages.txt"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	set := map[string]string{"delay": "empirical", "ages": path}
	if weights != "" {
		set["weights"] = weights
	}
	s, err := core.NewSpec("tau-delay", set, core.Common{Bins: 100, Balls: 10000, Trials: 3, Seed: 5, Checkpoints: 2, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for trial := range uint64(3) {
		r := RunTrial(s, trial, nil)
		r.ElapsedS, r.BallsPerS, r.Params = 0, 0, nil
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		// The digests predate the checkpoints' running max_gap (their last
		// field); it is taken out so that they still pin the draws.
		b = checkpointMaxGap.ReplaceAll(b, []byte("}"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], s.Hash()
}

// The sparse ages draw what the dense table drew: the same results, seeded,
// for files with and without ages of count 0. The digests were taken from
// the dense implementation. The hashes are pinned as they stand since the
// sweep-file change that put an ages file's law, not its path, in the spec
// hash (Spec.Hash); the law's text itself is the dense one's.
func TestEmpiricalAgesSeededOutputUnchanged(t *testing.T) {
	for _, c := range []struct {
		name, text, weights, digest, hash string
	}{
		{"gaps", "0 3\n2 2\n3 1 # c\n6 4\n", "", "5ba37e11825de391", "32e753b7188476b8"},
		{"dense", "0 5\n1 4\n2 3\n3 2\n4 1\n", "", "a4ba80618de12a98", "cbbdce65aab5d0bf"},
		{"gaps-weighted", "0 3\n2 2\n3 1\n6 4\n", "exp:1", "f1fcabf7d82a1910", "67b7df567aa18fac"},
		{"zero-top", "0 3\n1 1\n9 0\n", "", "d487b4a068a63801", "4eff507399a58ecf"},
	} {
		d, h := agesDigest(t, c.text, c.weights)
		if d != c.digest || h != c.hash {
			t.Errorf("%s: digest %s hash %s, want %s %s", c.name, d, h, c.digest, c.hash)
		}
	}
}
