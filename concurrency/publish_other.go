//go:build !amd64 || race

package concurrency

import "sync/atomic"

// storeRelease: an atomic store where a plain one is not a release, and
// under the race detector (see publish_amd64.go).
func storeRelease(p *atomic.Uint64, v uint64) { p.Store(v) }
