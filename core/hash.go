package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/balloc/balloc/core/process"

	"github.com/balloc/balloc/internal/files"
)

// fileDigests caches a file's SHA-256 by path, size and modification time,
// so a grid listing one large graph for many parameters reads it once.
var fileDigests = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// fileDigest is the hex SHA-256 of the file at path, or a note of why it
// could not be read (NewSpec has read it, so that is a file changing under us).
func fileDigest(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "unreadable"
	}
	key := fmt.Sprintf("%s|%d|%d", path, fi.Size(), fi.ModTime().UnixNano())
	fileDigests.Lock()
	defer fileDigests.Unlock()
	if d, ok := fileDigests.m[key]; ok {
		return d
	}
	f, err := files.OpenInput(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	d := hex.EncodeToString(h.Sum(nil))
	fileDigests.m[key] = d
	return d
}

// Hash identifies a grid point: a digest of everything that decides its
// trials' results (process, parameters, n, m, seed, checkpoints, resolved
// engine, α), not of the number of trials, so a sweep can grow. A file a
// parameter names enters by its content, not its path: a graph or
// hyperedges file:PATH as the SHA-256 of its bytes, ages as the law read
// from them; so editing the file between a kill and a resume is seen, and
// moving it is not. Specs that name no file hash as they always did.
func (s *Spec) Hash() string {
	keys := make([]string, 0)
	pm := s.ParamsMap()
	for _, k := range []string{"graph", "hyperedges", "initial"} {
		if v, ok := pm[k].(string); ok {
			if p, ok := strings.CutPrefix(v, "file:"); ok {
				pm[k] = "file:sha256:" + fileDigest(p)
			}
		}
	}
	var content []string
	if c, ok := s.Proc.(process.Content); ok {
		values, parts := c.Content()
		for k, v := range values {
			if _, ok := pm[k]; ok {
				pm[k] = v
			}
		}
		content = parts
	}
	for k := range pm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, pm[k]))
	}
	parts = append(parts, content...)
	cp := fmt.Sprint(s.Checkpoints) // even spacing hashes as it always has
	if s.CheckpointsLog {
		cp = "log:" + cp
	}
	desc := fmt.Sprintf("balloc/1 %s {%s} n=%d m=%d seed=%d cp=%s engine=%s alpha=%v",
		s.Process.Name, strings.Join(parts, " "), s.Bins, s.Balls, s.Seed, cp, s.engine, s.Alpha)
	sum := sha256.Sum256([]byte(desc))
	return hex.EncodeToString(sum[:8])
}
