package run

import (
	"io"
	"regexp"
	"runtime/debug"
	"sync"
	"time"

	"github.com/alecthomas/kong"

	"github.com/kimi-run/kimi-run/completion"
	"github.com/kimi-run/kimi-run/manpage"
)

// writeManPage writes kimi-run(1) (package manpage) for this build.
func writeManPage(w io.Writer, app *kong.Application, version string) error {
	return manpage.Write(w, app, manpage.Page{
		Description: description,
		Version:     version,
		Date:        manDate(version, debug.ReadBuildInfo, time.Now),
		Commands:    []string{completion.Command + "\n\\fBbash\\fR|\\fBzsh\\fR|\\fBfish\\fR"},
		Notes: "The prompt is the words after the flags, \\fB\\-p\\fR, \\fB\\-\\-prompt\\-file\\fR or stdin. " +
			"\\fBkimi\\-run completion\\fR \\fISHELL\\fR (exactly those two words) writes a completion script " +
			"for bash, zsh or fish.",
	})
}

// dateIn finds the day in a release's version string, "1.2.3 (abc1234, 2026-01-02T…)".
var dateIn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`, (\d{4}-\d{2}-\d{2})`) })

// manDate is the day the page describes: the release's commit date, else the commit Go
// stamped into the build, else today. A page without a date draws a warning from man
// and mandoc.
func manDate(version string, info func() (*debug.BuildInfo, bool), now func() time.Time) string {
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
