package process

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"
)

// ReadReplay reads an age sequence for tau-delay --delay replay: ages in
// balls, one per ball in ball order, separated by blanks or newlines (#
// comments), each below 2^32 − 1. Errors name the file and line.
func ReadReplay(path string) ([]uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--replay: %v", err)
	}
	defer f.Close()
	// Held as 4 bytes an age, and an age takes at least 2 bytes of text: a
	// file of more than half the memory available could not be held.
	if fi, err := f.Stat(); err == nil {
		if mem := units.MemoryLimit(); mem.Bytes > 0 && uint64(fi.Size()) > mem.Bytes/2 {
			return nil, fmt.Errorf("--replay %s: %s of ages could take up to %s, more than the %v; replay a shorter sequence", path,
				units.FormatBytes(float64(fi.Size())), units.FormatBytes(2*float64(fi.Size())), mem)
		}
	}
	var ages []uint32
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, w := range strings.Fields(line) {
			a, err := strconv.ParseUint(w, 10, 32)
			if err != nil || a > 1<<32-2 {
				return nil, fmt.Errorf("--replay %s:%d: want an age in [0, 4294967294], got %q", path, ln, w)
			}
			ages = append(ages, uint32(a))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--replay %s: %v", path, err)
	}
	if len(ages) == 0 {
		return nil, fmt.Errorf("--replay %s: no ages", path)
	}
	return ages, nil
}

// WriteReplay writes ages in the form ReadReplay reads, one a line.
func WriteReplay(w io.Writer, ages []uint32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for _, a := range ages {
		buf = strconv.AppendUint(buf[:0], uint64(a), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// replayDigest identifies an age sequence by content, for Spec.Hash.
func replayDigest(ages []uint32) string {
	h := sha256.New()
	var b [4]byte
	for _, a := range ages {
		binary.LittleEndian.PutUint32(b[:], a)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
