package sweep

import "testing"

// Every Slurm time format is taken as it is.
func TestSlurmTimeFormats(t *testing.T) {
	for _, v := range []string{"30", "30:00", "02:00:00", "1-12", "1-12:30", "1-12:30:00", "0", "INFINITE", "unlimited"} {
		if err := CheckSlurmTime(v); err != nil {
			t.Errorf("--time %q refused: %v", v, err)
		}
	}
}
