package main

import (
	"runtime/debug"
	"testing"
)

// What --version says of a build that is not a release: the issue-29 machine with Go's
// default -buildvcs stamps a pseudo-version from git, which must not repeat the revision.
func TestBuildVersion(t *testing.T) {
	const rev = "14281d443438a1b2c3d4e5f60718293a4b5c6d7e"
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}}
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"a checkout without VCS stamping", "(devel)", nil, "dev"},
		{"a checkout with VCS stamping", "(devel)", vcs, "dev (14281d4)"},
		{"a pseudo-version from git", "v0.0.0-20261123132119-14281d443438", vcs, "v0.0.0-20261123132119-14281d443438"},
		{"a modified checkout", "v0.0.0-20261123132119-14281d443438+dirty", vcs, "v0.0.0-20261123132119-14281d443438+dirty"},
		{"go install of a tag", "v1.2.3", nil, "v1.2.3"},
		{"a tag built from a checkout", "v1.2.3", vcs, "v1.2.3 (14281d4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Version: tt.version}, Settings: tt.settings}
			if got := buildVersion(info); got != tt.want {
				t.Errorf("buildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}
