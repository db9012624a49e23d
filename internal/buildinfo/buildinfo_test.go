package buildinfo

import (
	"runtime/debug"
	"testing"
)

// The commit comes from the linker flag, else the build info: vcs.revision
// (-dirty when modified), else the commit in a pseudo-version, else a
// release version.
func TestCommit(t *testing.T) {
	rev := "348e45682ef048c8a77fb157f332643c76ad1271"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	info := func(version string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/balloc/balloc", Version: version}, Settings: s}
	}
	for _, c := range []struct {
		ldflag string
		bi     *debug.BuildInfo
		want   string
	}{
		{"abc", info("(devel)", vcs("false")), "abc"},
		{"", nil, "unknown"},
		{"", info("(devel)", nil), "unknown"},
		{"", info("(devel)", vcs("false")), rev},
		{"", info("v0.0.0-20261203083000-348e45682ef0+dirty", vcs("true")), rev + "-dirty"},
		{"", info("v0.0.0-20261203083000-348e45682ef0", nil), "348e45682ef0"},
		{"", info("v0.3.1-0.20261203083000-348e45682ef0", nil), "348e45682ef0"},
		{"", info("v0.4.0-rc.1.0.20261203083000-348e45682ef0+incompatible", nil), "348e45682ef0"},
		{"", info("v0.3.0", nil), "v0.3.0"},
		{"", info("v0.3.0-20261203083000-348e45682ef", nil), "v0.3.0-20261203083000-348e45682ef"}, // 11 digits: not a pseudo-version
	} {
		if got := Commit(c.ldflag, c.bi); got != c.want {
			t.Errorf("Commit(%q, %v) = %q, want %q", c.ldflag, c.bi, got, c.want)
		}
	}
}
