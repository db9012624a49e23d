package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/balloc/balloc/internal/files"
)

// LockName is the file in a sweep folder that sweep and merge lock while
// they write there. It is left in place after a run: removing it would let
// a process that opened the old file and one that creates a new one both
// hold "the" lock.
const LockName = "sweep.lock"

// lockRecordPrefix starts what a run writes into the lock file.
const lockRecordPrefix = "balloc "

// Lock is an advisory lock (flock) on a sweep folder, held from before
// the manifest is read until the run ends, so two runs never append to one
// results.jsonl. The kernel drops it when the process dies, kill -9
// included, so a killed sweep never leaves a stale lock. flock locks belong
// to an open file description: two opens in one process conflict too.
type Lock struct{ f *os.File }

// LockFolder takes dir's lock or refuses, naming the process that holds it
// (what it wrote into the lock file). what is the command, for the record.
func LockFolder(dir, what string) (*Lock, error) {
	path := filepath.Join(dir, LockName)
	// Not followed if a link, and opened without blocking: a FIFO or a
	// device put there is refused below, never waited on.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--out %s: cannot open %s: %v", dir, path, files.Cause(err))
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("--out %s: %s is not a regular file, so not balloc's lock; balloc leaves it as it is", dir, path)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("--out %s is in use by %s (it holds %s); wait for it to finish or use another folder", dir, lockHolder(f), path)
		}
		return nil, fmt.Errorf("--out %s: cannot lock %s: %v", dir, path, err)
	}
	// What is there must be a record balloc wrote (or nothing: a run
	// killed between creating and writing it); anything else is a file of
	// the user's that happens to have the name, and is left as it is.
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	if n > 0 && !strings.HasPrefix(string(b[:n]), lockRecordPrefix) {
		f.Close()
		return nil, fmt.Errorf("--out %s: %s is not balloc's lock file (it does not start with %q); balloc leaves it as it is: move it or use another folder", dir, path, lockRecordPrefix)
	}
	host, _ := os.Hostname()
	rec := fmt.Sprintf(lockRecordPrefix+"%s, pid %d on %s, since %s\n", what, os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	// The record only informs a refused run; failing to write it is no
	// reason to stop this one.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(rec), 0)
	}
	return &Lock{f: f}, nil
}

// lockHolder reads who holds a lock. The holder writes its record just
// after taking the lock, so a run started at the same instant waits a
// moment for it.
func lockHolder(f *os.File) string {
	for range 50 {
		b := make([]byte, 512)
		n, err := f.ReadAt(b, 0)
		if s := strings.TrimSpace(string(b[:n])); s != "" && (err == nil || err == io.EOF) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "another balloc run (it has not recorded which yet)"
}

// Release drops the lock.
func (l *Lock) Release() { l.f.Close() }
