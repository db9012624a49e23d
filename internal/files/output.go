package files

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
)

// Output is a file a run will write, checked by NewOutput before the work.
type Output struct {
	flag, path string      // as the user named it, for messages
	target     string      // the file written: path with links followed
	special    bool        // a device, FIFO or other special file: written in place
	exists     bool        // a regular file is there, to be replaced
	perm       fs.FileMode // the permissions the written file gets
	mkdir      bool        // its folder is made when it is written
}

// The outputs of this run so far, by the file written: two flags may not
// name one file.
var outputs struct {
	sync.Mutex
	paths map[string]string
}

// NewOutput checks, before any work, that path can take what flag writes
// (see the package comment for the rule) and reserves it for flag. An
// existing regular file is refused unless force (the command's --force)
// is set. Its errors are one line naming flag and path.
func NewOutput(flag, path string, force bool) (*Output, error) {
	return newOutput(flag, path, force, false)
}

// NewRewrite is NewOutput for a file the command itself reads and writes
// back whole by design (a sweep's manifest, a merge's own results): that
// it is an input is no reason to refuse it.
func NewRewrite(flag, path string) (*Output, error) { return newOutput(flag, path, true, true) }

func newOutput(flag, path string, force, rewrite bool) (*Output, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s %s: %s", flag, path, fmt.Sprintf(format, a...))
	}
	if path == "" {
		return nil, fmt.Errorf("%s: want a file name", flag)
	}
	o := &Output{flag: flag, path: path, target: path, perm: 0o644}
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, fail("a symbolic link to nothing that can be written (%v)", Cause(err))
		}
		o.target = t
	}
	fi, err := os.Stat(o.target)
	switch {
	case err == nil && fi.IsDir():
		return nil, fail("is a directory, not a file")
	case err == nil:
		if in, ok := inputNamed(fi); ok && !rewrite {
			if in == path {
				return nil, fail("is also an input of this run; write the output elsewhere")
			}
			return nil, fail("is also an input of this run (read as %s); write the output elsewhere", in)
		}
		if fi.Mode()&fs.ModeSocket != 0 {
			return nil, fail("is a socket; want a file")
		}
		if err := syscall.Access(o.target, 2 /* W_OK */); err != nil {
			return nil, fail("cannot be written: %v", err)
		}
		if !fi.Mode().IsRegular() {
			o.special = true
			break
		}
		if !force {
			return nil, fail("the file exists; balloc replaces it only with --force")
		}
		o.exists, o.perm = true, fi.Mode().Perm()
		if err := probeFolder(filepath.Dir(o.target)); err != nil {
			return nil, fail("cannot be replaced: %v", err)
		}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		dir := filepath.Dir(o.target)
		missing, err := missingFolders(dir)
		if err != nil {
			return nil, fail("%v", err)
		}
		// Make the missing folders and the file, then remove them: the
		// names, the folders' permissions and the file system all answer
		// now, not after the work.
		var made []string
		undo := func() {
			for i := len(made) - 1; i >= 0; i-- {
				os.Remove(made[i])
			}
		}
		for _, m := range missing {
			if err := os.Mkdir(m, 0o755); err != nil {
				undo()
				return nil, fail("cannot make the folder %s: %v", m, Cause(err))
			}
			made = append(made, m)
		}
		// A file of balloc's own folder (rewrite: a manifest) is not made
		// for the probe: its name is balloc's, and another balloc reading
		// the folder unlocked would find it empty for a moment.
		if !rewrite {
			f, err := os.OpenFile(o.target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil && !errors.Is(err, fs.ErrExist) {
				undo()
				return nil, fail("cannot create a file in %s: %v", dir, Cause(err))
			}
			if err == nil {
				f.Close()
				os.Remove(o.target)
			}
		}
		err = probeFolder(dir)
		undo()
		if err != nil {
			return nil, fail("cannot create a file in %s: %v", dir, err)
		}
		o.mkdir = len(missing) > 0
	default:
		return nil, fail("%v", Cause(err))
	}
	abs, err := filepath.Abs(o.target)
	if err != nil {
		return nil, fail("%v", Cause(err))
	}
	if rewrite {
		return o, nil // the command's own file, written once by design
	}
	outputs.Lock()
	defer outputs.Unlock()
	if other, ok := outputs.paths[abs]; ok && !o.special {
		return nil, fail("is also written by %s; give each output a file of its own", other)
	}
	if outputs.paths == nil {
		outputs.paths = map[string]string{}
	}
	outputs.paths[abs] = flag
	return o, nil
}

// missingFolders lists the folders of dir that do not exist yet, outermost
// first; an error when something on the path is a file, not a folder.
func missingFolders(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; {
		fi, err := os.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			slices.Reverse(missing)
			return missing, nil
		case err == nil:
			return nil, fmt.Errorf("%s is not a folder", d)
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, d)
		case errors.Is(err, syscall.ENOTDIR): // a file further up
		default:
			return nil, Cause(err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("no folder of it exists")
		}
		d = parent
	}
}

// probeFolder checks that a temporary file of the name Write uses can be
// made in dir.
func probeFolder(dir string) error {
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return Cause(err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// tempPattern names the temporary file an output is written to: short and
// of a fixed length, so that any name the folder takes, it takes too.
const tempPattern = ".balloc-*.tmp"

// SetPerm sets the permissions a new file gets (a replaced one keeps its
// own); 0644 unless set.
func (o *Output) SetPerm(perm fs.FileMode) {
	if !o.exists {
		o.perm = perm
	}
}

// Path is the output's path as the user named it.
func (o *Output) Path() string { return o.path }

// Replaces reports whether writing replaces an existing regular file.
func (o *Output) Replaces() bool { return o.exists }

// Write writes what fill writes into the output: in place for a special
// file, else through a temporary file renamed over the target once whole
// and synced (fill failing leaves the old file as it was).
func (o *Output) Write(fill func(w io.Writer) error) error {
	if o.special {
		f, err := os.OpenFile(o.target, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		err = fill(w)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	dir := filepath.Dir(o.target)
	if o.mkdir {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriter(f)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, o.perm)
	}
	if err == nil {
		err = os.Rename(tmp, o.target)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself; a folder that cannot sync is no error
		d.Close()
	}
	return nil
}

// WriteFile writes data into the output as Write does.
func (o *Output) WriteFile(data []byte) error {
	return o.Write(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Cause is the operating system's reason inside a path or link error
// ("permission denied" rather than "open out/x: permission denied"), for a
// message that names the path itself; any other error is returned as is.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
