package process

import "fmt"

// needBins refuses a process that does not fix its bins when --bins is
// missing.
func needBins(p Process, su *Setup) error {
	if su.Bins == 0 {
		return fmt.Errorf("--bins is required for %s", p.Entry().Name)
	}
	return nil
}
