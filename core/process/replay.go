package process

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/units"

	"github.com/balloc/balloc/internal/files"
)

// maxReplayLine bounds a line of a replay file, which WriteReplay writes as
// one age a line.
const maxReplayLine = 16 << 20

// ReadReplay reads an age sequence for tau-delay --delay replay: ages in
// balls, one per ball in ball order, separated by blanks or newlines (#
// comments), each below 2^32 − 1. Errors name the file and line.
func ReadReplay(path string) ([]uint32, error) {
	f, err := files.OpenInput(path)
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
	// A file that is not regular (a device) has no size to check: its ages
	// are counted against the memory as they are read.
	most := uint64(math.MaxUint64)
	mem := units.MemoryLimit()
	if mem.Bytes > 0 {
		most = mem.Bytes / 8 // 4 bytes an age, and append's spare capacity
	}
	var ages []uint32
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), maxReplayLine)
	ln := 1
	for ; sc.Scan(); ln++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, w := range strings.Fields(line) {
			a, err := strconv.ParseUint(w, 10, 32)
			if err != nil || a > 1<<32-2 {
				return nil, fmt.Errorf("--replay %s:%d: want an age in [0, 4294967294], got %q", path, ln, clipText(w))
			}
			if uint64(len(ages)) >= most {
				return nil, fmt.Errorf("--replay %s:%d: more ages than the %v can hold; replay a shorter sequence", path, ln, mem)
			}
			ages = append(ages, uint32(a))
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("--replay %s:%d: a line longer than %s; want ages separated by spaces or newlines", path, ln, units.FormatBytes(maxReplayLine))
	} else if err != nil {
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
