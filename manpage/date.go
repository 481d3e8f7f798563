package manpage

import (
	"regexp"
	"runtime/debug"
	"sync"
	"time"
)

// Date is the day the page of this build describes (Page.Date): the release's commit date
// in version, else the commit Go stamped into the build, else today. A page without a date
// draws a warning from man and mandoc.
func Date(version string) string { return date(version, debug.ReadBuildInfo, time.Now) }

// dateIn finds the day in a release's version string, "1.2.3 (abc1234, 2026-01-02T…)".
var dateIn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`, (\d{4}-\d{2}-\d{2})`) })

// date is Date with the build's stamp and the clock given.
func date(version string, info func() (*debug.BuildInfo, bool), now func() time.Time) string {
	if m := dateIn().FindStringSubmatch(version); m != nil {
		return m[1]
	}
	if bi, ok := info(); ok {
		for _, s := range bi.Settings {
			if t, err := time.Parse(time.RFC3339, s.Value); s.Key == "vcs.time" && err == nil {
				return t.UTC().Format(time.DateOnly)
			}
		}
	}
	return now().UTC().Format(time.DateOnly)
}
