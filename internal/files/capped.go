package files

import "io"

// ReadCapped reads a file whole but at most limit+1 bytes of it (a file
// that grows while it is read ends too; OpenInput refuses anything but
// a regular file): a result longer than limit says the file passes the cap,
// and the caller names it.
func ReadCapped(path string, limit int) ([]byte, error) {
	f, err := OpenInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}
