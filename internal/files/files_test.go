package files

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, path, text string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
}

// A FIFO, a device and a folder are refused as inputs at once: a FIFO with
// no writer would block os.Open forever.
func TestOpenInputRefusesSpecialFiles(t *testing.T) {
	Forget()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, c := range []struct {
		path string
		want error
	}{{fifo, ErrNotRegular}, {"/dev/null", ErrNotRegular}, {dir, syscall.EISDIR}} {
		f, err := OpenInput(c.path)
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", c.path)
			continue
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want %v naming the path", c.path, err, c.want)
		}
	}
	if _, err := ReadInput(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadInput of a FIFO: %v", err)
	}
	if _, err := StatInput(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("StatInput of a FIFO: %v", err)
	}
}

// An output that is an input, under any name (itself, a hard link, a
// symbolic link), is refused even with force; a file that is no input is
// refused without force and replaced with it.
func TestNewOutputRefusesInputs(t *testing.T) {
	Forget()
	dir := t.TempDir()
	in := filepath.Join(dir, "g.txt")
	write(t, in, "0 1\n", 0o600)
	hard, soft := filepath.Join(dir, "hard"), filepath.Join(dir, "soft")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("g.txt", soft); err != nil {
		t.Fatal(err)
	}
	if _, err := NewOutput("--plot", in, true); err != nil {
		t.Fatalf("before it is read, g.txt is no input: %v", err)
	}
	Forget()
	if _, err := ReadInput(in); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{in, hard, soft} {
		_, err := NewOutput("--memprofile", p, true)
		if err == nil || !strings.Contains(err.Error(), "input") || !strings.HasPrefix(err.Error(), "--memprofile "+p+":") {
			t.Errorf("%s: %v, want a refusal naming --memprofile and the input", p, err)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "0 1\n" {
		t.Errorf("the input changed: %q", b)
	}
	// NewRewrite is for a file the command reads and writes back itself.
	if _, err := NewRewrite("--out", in); err != nil {
		t.Errorf("NewRewrite of an input: %v", err)
	}
}

func TestNewOutputExistingFile(t *testing.T) {
	Forget()
	dir := t.TempDir()
	p := filepath.Join(dir, "old.png")
	write(t, p, "old", 0o600)
	if _, err := NewOutput("--plot", p, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("an existing file without force: %v", err)
	}
	o, err := NewOutput("--plot", p, true)
	if err != nil || !o.Replaces() {
		t.Fatalf("with force: %v, replaces %v", err, o != nil && o.Replaces())
	}
	// A failed write leaves the old file, and no temporary file.
	if err := o.Write(func(w io.Writer) error { w.Write([]byte("half")); return errors.New("disk full") }); err == nil {
		t.Error("the fill's error was lost")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if err := o.WriteFile([]byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced: %q, mode %v; want \"new\", 0600 kept", b, fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone", len(entries))
	}
	// Two outputs of a run may not share a file.
	Forget()
	if _, err := NewOutput("--plot", filepath.Join(dir, "a.png"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := NewOutput("--cpuprofile", filepath.Join(dir, ".", "a.png"), false); err == nil || !strings.Contains(err.Error(), "--plot") {
		t.Errorf("a second output on one file: %v", err)
	}
}

// Paths that cannot be created are refused by NewOutput, before any work,
// and leave nothing behind.
func TestNewOutputCannotCreate(t *testing.T) {
	Forget()
	dir := t.TempDir()
	reg := filepath.Join(dir, "regular")
	write(t, reg, "x", 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, strings.Repeat("n", 300)+".png"), "too long"},
		{filepath.Join(dir, "new", strings.Repeat("n", 300), "x.png"), "too long"},
		{filepath.Join(reg, "x.png"), reg + " is not a folder"},
		{filepath.Join(reg, "a", "b", "x.png"), reg + " is not a folder"},
		{"/proc/x.png", "cannot create a file in /proc"},
		{dir, "is a directory"},
		{"", "want a file name"},
	} {
		_, err := NewOutput("--plot", c.path, true)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40s: %v, want one line saying %q", c.path, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the checks left %d entries in the folder, want 1", len(entries))
	}
	// Missing folders are checked and left unmade until the output is
	// written.
	deep := filepath.Join(dir, "a", "b", "x.png")
	o, err := NewOutput("--plot", deep, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("the check left the folder a behind")
	}
	if err := o.WriteFile([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(deep); err != nil || string(b) != "x" {
		t.Errorf("written into new folders: %q, %v", b, err)
	}
}

// A FIFO and a character device are written in place: never renamed over,
// so they stay what they are. The device is a copy of /dev/null's made in
// a temporary folder (as root), never a real device.
func TestOutputSpecialInPlace(t *testing.T) {
	Forget()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	o, err := NewOutput("--cpuprofile", fifo, false)
	if err != nil {
		t.Fatalf("a FIFO as output: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := o.WriteFile([]byte("profile")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "profile" {
		t.Errorf("the reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no device node here (%v); the FIFO stands for it", err)
		return
	}
	o, err = NewOutput("--cpuprofile", null, false)
	if err != nil {
		t.Fatalf("a device as output: %v", err)
	}
	if err := o.WriteFile([]byte("profile")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("the device is now %v (%v)", fi.Mode(), err)
	}
}
