package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedIsCurrent: kernels/memory_stale_loops.go is what the
// template makes now (an edit of either without go generate fails here).
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../memory_stale_loops.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("kernels/memory_stale_loops.go differs from the template's output: run go generate ./kernels")
	}
}
