package manpage

import (
	"runtime/debug"
	"testing"
	"time"
)

func TestDate(t *testing.T) {
	now := func() time.Time { return time.Date(2030, 5, 6, 23, 0, 0, 0, time.FixedZone("x", -5*3600)) }
	vcs := func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-11-23T13:21:19Z"}}}, true
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tt := range []struct {
		name, version string
		info          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"a release: its commit date", "1.2.3 (abc1234, 2026-01-02T03:04:05Z)", vcs, "2026-01-02"},
		{"a build Go stamped from git", "v0.0.0-20261123132119-14281d443438", vcs, "2026-11-23"},
		{"neither: today, in UTC", "dev", none, "2030-05-07"},
		{"a release without a date", "1.2.3 (abc1234, unknown)", none, "2030-05-07"},
	} {
		if got := date(tt.version, tt.info, now); got != tt.want {
			t.Errorf("%s: date(%q) = %q, want %q", tt.name, tt.version, got, tt.want)
		}
	}
}
