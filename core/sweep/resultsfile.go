package sweep

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
)

// A results file holds one Result per line (JSON). Lines are appended whole
// by one write each and synced, so a process killed at any moment leaves
// complete lines and at most one torn last line, which readers ignore.

// MaxResultLine bounds one line of a results file: a result with a
// million checkpoints takes about 150 MB, and a line of 256 MiB is more
// than any run writes; a longer one (a file that is not results, such as
// /dev/zero read as one) is refused rather than read into memory.
const MaxResultLine = 256 << 20

// ReadResults reads a results file whole (ScanResults): the complete
// records, the byte length up to the end of the last complete line, and
// whether a torn last line followed it.
func ReadResults(path string) (recs []*result.Result, valid int64, torn bool, err error) {
	valid, torn, err = ScanResults(path, func(_ int, _ int64, _ []byte, r *result.Result) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, 0, false, err
	}
	return recs, valid, torn, nil
}

// ScanResults reads a results file one line at a time, so that its memory
// is one line, not the file: each is called with every complete record in
// file order, its line number (from 1), the byte offset where its line
// starts and the line's bytes (valid during the call only). It returns the
// byte length of the file up to the end of the last complete line, and
// whether a torn line followed it. Only an unterminated last line is torn:
// each line is written with its newline in one write, so a killed run can
// cut the last line short but never leaves a complete line that is not a
// result. Any complete line that is not a result, the last one included, is
// someone else's data and an error naming the file and line; so is a line
// longer than MaxResultLine. A missing file has no records; one that is not
// a regular file is refused.
func ScanResults(path string, each func(line int, off int64, raw []byte, r *result.Result) error) (valid int64, torn bool, err error) {
	// Checked before opening: opening a named pipe waits for a writer.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return 0, false, fmt.Errorf("%s: %s, not a file of results balloc sweep wrote", path, files.Kind(fi.Mode()))
	}
	f, err := files.OpenInput(path)
	if os.IsNotExist(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var long []byte // a line longer than br's buffer, put together
	line := 0
	for {
		chunk, rerr := br.ReadSlice('\n')
		data := chunk
		if rerr == bufio.ErrBufferFull {
			long = append(long[:0], chunk...)
			for rerr == bufio.ErrBufferFull {
				if len(long) > MaxResultLine {
					return 0, false, fmt.Errorf("%s:%d: a line longer than %s; results are lines of JSON, one per trial", path, line+1, units.FormatBytes(MaxResultLine))
				}
				chunk, rerr = br.ReadSlice('\n')
				long = append(long, chunk...)
			}
			data = long
		}
		if rerr != nil && rerr != io.EOF {
			return 0, false, fmt.Errorf("%s: %v", path, rerr)
		}
		if rerr == io.EOF {
			return valid, len(data) > 0, nil // bytes without a newline: the last write was cut short
		}
		line++
		var r result.Result
		if err := json.Unmarshal(data[:len(data)-1], &r); err != nil {
			return 0, false, fmt.Errorf("%s:%d: not a result (%v); balloc leaves the file as it is", path, line, err)
		}
		if err := each(line, valid, data, &r); err != nil {
			return 0, false, err
		}
		valid += int64(len(data))
	}
}

// ResultsWriter appends results to a file, one synced write per line.
type ResultsWriter struct {
	f *os.File
}

// AppendResults opens path for appending after cutting it to valid bytes
// (dropping a torn last line). The file is opened O_APPEND, so each line
// lands whole at the end whatever else writes to it; a sweep also holds its
// folder's lock (cmd/balloc) so that nothing else does.
func AppendResults(path string, valid int64) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode().IsRegular() && st.Size() > valid {
		if err := f.Truncate(valid); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &ResultsWriter{f: f}, nil
}

// Write appends one result as one line and syncs it to disk.
func (rw *ResultsWriter) Write(r *result.Result) error {
	b, err := result.Encode(r)
	if err != nil {
		return err
	}
	if _, err := rw.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %v", rw.f.Name(), err)
	}
	if err := rw.f.Sync(); err != nil {
		return fmt.Errorf("%s: %v", rw.f.Name(), err)
	}
	return nil
}

// Close closes the file.
func (rw *ResultsWriter) Close() error { return rw.f.Close() }
