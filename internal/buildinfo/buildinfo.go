// Package buildinfo reads which commit a balloc binary was built from, for
// its version line and a sweep manifest's provenance, however it was built.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// pseudoCommit matches the end of a Go pseudo-version
// (v0.0.0-20261203083000-abcdef123456, v1.2.4-0.20261203083000-abcdef123456,
// with a +dirty or +incompatible suffix dropped first): its commit prefix.
var pseudoCommit = regexp.MustCompile(`[-.][0-9]{14}-([0-9a-f]{12})$`)

// Commit is the commit a binary was built from, in the order the ways of
// building it give one: the linker flag (make build, make install); the
// build info's vcs.revision, with -dirty when the tree had changes (go build
// or go install in a clone, where -buildvcs is on; Go finds no repository in
// a linked git worktree, whose .git is a file); the module's pseudo-version
// (go install …@latest or @commit from a proxy, which records no vcs.*
// settings, names the commit's first 12 hex digits); a release version
// (v0.3.0, whose tag names the commit). Otherwise "unknown".
func Commit(ldflag string, bi *debug.BuildInfo) string {
	if ldflag != "" {
		return ldflag
	}
	if bi == nil {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if dirty {
			rev += "-dirty"
		}
		return rev
	}
	v, _, _ := strings.Cut(bi.Main.Version, "+")
	if m := pseudoCommit.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	if strings.HasPrefix(v, "v") {
		return v
	}
	return "unknown"
}
