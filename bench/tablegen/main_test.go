package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestTableFromBenchOutput(t *testing.T) {
	if os.Getenv("TABLEGEN_CHILD") == "1" {
		main()
		return
	}
	in := `goos: linux
BenchmarkDirect/two-choice/n=1e4-2   	100	 300000000 balls/s
BenchmarkDirect/two-choice/n=1e4-2   	100	 400000000 balls/s
BenchmarkDirect/two-choice/n=1e4-2   	100	 350000000 balls/s
BenchmarkNaive/two-choice/n=1e4-2    	100	  50000000 balls/s
PASS
`
	cmd := exec.Command(os.Args[0], "-test.run", "TestTableFromBenchOutput")
	cmd.Env = append(os.Environ(), "TABLEGEN_CHILD=1")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "| two-choice | 1e4 | 350.0 | 50.0 | 7.0× |") {
		t.Errorf("table:\n%s", out)
	}
}
