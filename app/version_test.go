package app

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: the module version, the VCS revision, and "modified" for
// a dirty tree, from the build information Go embeds.
func TestVersionOf(t *testing.T) {
	t.Parallel()
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "53571c6a1b2c3d4e5f60718293a4b5c6d7e8f901"}}
	for _, tc := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.0", nil, "v1.2.0"},
		{"(devel)", nil, "dev"},
		{"", nil, "dev"},
		{"(devel)", rev, "dev (revision 53571c6a1b2c)"},
		{"(devel)", append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "dev (revision 53571c6a1b2c, modified)"},
		{"v1.2.0", append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "false"}), "v1.2.0 (revision 53571c6a1b2c)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tc.version}, Settings: tc.settings}
		if got := versionOf(bi); got != tc.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", tc.version, tc.settings, got, tc.want)
		}
	}
}
