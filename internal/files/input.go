package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// ErrNotRegular is the cause of refusing an input that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// identity is a file as the kernel knows it, whatever its name.
type identity struct{ dev, ino uint64 }

func identityOf(fi fs.FileInfo) (identity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	return identity{uint64(st.Dev), uint64(st.Ino)}, true
}

// The inputs this run has opened: an output may be none of them.
var inputs struct {
	sync.Mutex
	seen map[identity]string
}

// Forget clears the record of the run's inputs and outputs. balloc's Main
// calls it at its start, so that runs in one process (tests) stay apart.
func Forget() {
	inputs.Lock()
	inputs.seen = nil
	inputs.Unlock()
	outputs.Lock()
	outputs.paths = nil
	outputs.Unlock()
}

func remember(fi fs.FileInfo, path string) {
	id, ok := identityOf(fi)
	if !ok {
		return
	}
	inputs.Lock()
	defer inputs.Unlock()
	if inputs.seen == nil {
		inputs.seen = map[identity]string{}
	}
	if _, ok := inputs.seen[id]; !ok {
		inputs.seen[id] = path
	}
}

// inputNamed is the path under which the file fi was read, if it was.
func inputNamed(fi fs.FileInfo) (string, bool) {
	id, ok := identityOf(fi)
	if !ok {
		return "", false
	}
	inputs.Lock()
	defer inputs.Unlock()
	p, ok := inputs.seen[id]
	return p, ok
}

// OpenInput opens a file balloc reads. It opens without blocking (a FIFO
// with no writer would otherwise hang here) and refuses anything but a
// regular file: a folder with EISDIR, anything else with ErrNotRegular,
// both as an *fs.PathError naming path and what the file is.
func OpenInput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
		}
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s); want a regular file", ErrNotRegular, Kind(fi.Mode()))}
	}
	remember(fi, path)
	return f, nil
}

// ReadInput reads a whole file as OpenInput opens it.
func ReadInput(path string) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// StatInput is os.Stat that also refuses what OpenInput refuses, for a
// reader that only needs to know a file is there.
func StatInput(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s); want a regular file", ErrNotRegular, Kind(fi.Mode()))}
	}
	return fi, nil
}

// NoteInput records path as an input of this run without reading it: for
// a reader that keeps what it read from an earlier run in the same process
// (a cache), so that outputs still may not replace it.
func NoteInput(path string) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		remember(fi, path)
	}
}

// Kind names the type of a file that is not a regular one.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}
