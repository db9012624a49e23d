package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/internal/files"
)

// A results file holds one Result per line (JSON). Lines are appended whole
// by one write each and synced, so a process killed at any moment leaves
// complete lines and at most one torn last line, which readers ignore.

// ReadResults reads a results file. It returns the complete records, the
// byte length of the file up to the end of the last complete line, and
// whether a torn last line followed it. Only an unterminated last line is
// torn: each line is written with its newline in one write, so a killed run
// can cut the last line short but never leaves a complete line that is not
// a result. Any complete line that is not a result, the last one included,
// is someone else's data and an error naming the file and line.
func ReadResults(path string) (recs []*result.Result, valid int64, torn bool, err error) {
	f, err := files.OpenInput(path)
	if os.IsNotExist(err) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, false, err
	}
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		if i < 0 { // no newline: the last write was cut short
			return recs, valid, true, nil
		}
		var r result.Result
		if err := json.Unmarshal(data[:i], &r); err != nil {
			return nil, 0, false, fmt.Errorf("%s:%d: not a result (%v); balloc leaves the file as it is", path, line, err)
		}
		recs = append(recs, &r)
		valid += int64(i + 1)
		data = data[i+1:]
	}
	return recs, valid, false, nil
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
	b, err := json.Marshal(r)
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
