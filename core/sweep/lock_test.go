package sweep

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// flock locks belong to an open file description, so two locks in one
// process conflict as two processes' do; releasing lets the next one in.
func TestFolderLockInProcess(t *testing.T) {
	dir := t.TempDir()
	l, err := LockFolder(dir, "sweep")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockFolder(dir, "merge"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("balloc sweep, pid %d on", os.Getpid())) {
		t.Errorf("a second lock while held: %v; want a refusal naming this pid", err)
	}
	l.Release()
	l, err = LockFolder(dir, "merge")
	if err != nil {
		t.Fatalf("the lock after a release: %v", err)
	}
	l.Release()
}
