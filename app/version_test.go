package app

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf: the version and revision stamped at link time first, then
// the module version, the VCS revision, and "modified" for a dirty tree,
// from the build information Go embeds.
func TestVersionOf(t *testing.T) {
	t.Parallel()
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "53571c6a1b2c3d4e5f60718293a4b5c6d7e8f901"}}
	dirty := append(rev[:len(rev):len(rev)], debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	const stampRev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		stampVer, stampRev string
		version            string
		settings           []debug.BuildSetting
		want               string
	}{
		{"", "", "v1.2.0", nil, "v1.2.0"},
		{"", "", "(devel)", nil, "dev"},
		{"", "", "", nil, "dev"},
		{"", "", "(devel)", rev, "dev (revision 53571c6a1b2c)"},
		{"", "", "(devel)", dirty, "dev (revision 53571c6a1b2c, modified)"},
		{"", "", "v1.2.0", append(rev[:len(rev):len(rev)], debug.BuildSetting{Key: "vcs.modified", Value: "false"}), "v1.2.0 (revision 53571c6a1b2c)"},
		// A release build: the stamps win over what Go embeds.
		{"v0.3.0", stampRev, "(devel)", rev, "v0.3.0 (revision 0123456789ab)"},
		{"v0.3.0", stampRev, "", nil, "v0.3.0 (revision 0123456789ab)"},
		{"v0.3.0", "", "(devel)", rev, "v0.3.0 (revision 53571c6a1b2c)"},
		{"", stampRev, "v1.2.0", nil, "v1.2.0 (revision 0123456789ab)"},
		{"v0.3.0", "abc", "(devel)", dirty, "v0.3.0 (revision abc, modified)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tc.version}, Settings: tc.settings}
		if got := versionOf(tc.stampVer, tc.stampRev, bi); got != tc.want {
			t.Errorf("versionOf(%q, %q, %q, %v) = %q, want %q", tc.stampVer, tc.stampRev, tc.version, tc.settings, got, tc.want)
		}
	}
}
