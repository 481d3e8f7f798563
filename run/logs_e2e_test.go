package run_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestLogLevelWarnShowsWarnings: --log-level warn keeps warnings and errors on stderr and
// drops progress (issue 21 #6; it used to hide the warnings as --quiet does).
func TestLogLevelWarnShowsWarnings(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo broken >&2; exit 3"}`)),
		scripted.Text("Done."),
	)
	missing := filepath.Join(t.TempDir(), "cache")
	r := kimi(t, srv, invocation{args: []string{"--log-level", "warn", "--add-dir", missing, "-p", "x"}})
	if r.code != 0 || r.stdout != "Done.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"WRN --add-dir " + missing + " did not exist", "WRN   Shell", "broken"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, not := range []string{"INF", "step 1"} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("stderr has %q at --log-level warn:\n%s", not, r.stderr)
		}
	}
	// error keeps only a failure's line.
	r = kimi(t, scripted.New(t, scripted.Text("Done.")), invocation{args: []string{"--log-level", "error", "--add-dir", filepath.Join(t.TempDir(), "c"), "-p", "x"}})
	if r.code != 0 || r.stderr != "" {
		t.Errorf("--log-level error: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestTextProgressShowsWhatTheModelSays: each reply's text before its tool calls, and a
// Ralph iteration's answer, reach stderr as one shortened line; the final answer only
// stdout. One line per iteration; the end of the loop is not a second "iteration 2"
// (issue 21 #6).
func TestTextProgressShowsWhatTheModelSays(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 100)
	srv := scripted.New(t,
		scripted.Reply(scripted.Say("I'll run the tests\nfirst. "+long), scripted.Call("Shell", `{"command":"echo ok"}`)),
		scripted.Text("Fixed one. <choice>CONTINUE</choice>"),
		scripted.Text("All green. <choice>STOP</choice>"),
	)
	r := kimi(t, srv, invocation{args: []string{"-p", "make the tests pass", "--ralph", "3"}})
	if r.code != 0 || r.stdout != "All green.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	said := regexp.MustCompile(`(?m)^INF   « (.*)$`).FindAllStringSubmatch(r.stderr, -1)
	if len(said) != 2 || !strings.HasPrefix(said[0][1], "I'll run the tests first. word") || !strings.HasSuffix(said[0][1], "...") ||
		len([]rune(said[0][1])) > 160 || said[1][1] != "Fixed one. <choice>CONTINUE</choice>" {
		t.Errorf("the model's words on stderr = %q\n%s", said, r.stderr)
	}
	if strings.Contains(r.stderr, "All green") {
		t.Errorf("the final answer is on stderr too:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "iteration 2/"); n != 1 {
		t.Errorf("%d lines announce iteration 2, want 1:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "INF ended choice=STOP") {
		t.Errorf("the end of the loop is not shown:\n%s", r.stderr)
	}
}

// TestRalphErrorNamesTheIteration: a Ralph loop's internal node ids (R1, R2) never reach
// the user; the error names the iteration (issue 21 #6).
func TestRalphErrorNamesTheIteration(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json"} {
		srv := scripted.New(t,
			scripted.Text("Fixed one. <choice>CONTINUE</choice>"),
			scripted.Status(400, scripted.ErrorBody("invalid_request_error", "bad request")),
		)
		r := kimi(t, srv, invocation{args: []string{"--output-format", format, "-p", "x", "--ralph", "3"}})
		if r.code != 1 || !strings.Contains(r.stderr, "Ralph iteration 2: ") || strings.Contains(r.stderr+r.stdout, "flow node") {
			t.Errorf("%s: exit %d, want 1 naming Ralph iteration 2 and no flow node:\n%s", format, r.code, r.stderr)
		}
	}
}

// TestUsageErrorIsOneLine: a usage error is one line in one format, whichever check found
// it, with no summary of the zero steps and tokens of a run that never started (issue 21 #6).
func TestUsageErrorIsOneLine(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--ralph", "-5"},      // found by kimi-run
		{"--no-such-flag"},     // found by the flag parser
		{"--max-steps", "0"},   // found by kimi-run
		{"--json-schema", "{"}, // found by kimi-run
	} {
		for _, extra := range [][]string{nil, {"--quiet"}} {
			r := kimi(t, nil, invocation{args: append(append([]string{"-p", "x"}, args...), extra...)})
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "kimi-run: ") || strings.Contains(r.stderr, "steps=") {
				t.Errorf("%v %v: exit %d, stderr %q; want 2 and one line starting kimi-run:", args, extra, r.code, r.stderr)
			}
		}
	}
}

// TestReplaySpeedZeroAnnouncesNoWaits: at --replay-speed 0 a retry waits for nothing, and
// the text log does not say it waits (issue 21 #6); the events keep the recorded delay.
func TestReplaySpeedZeroAnnouncesNoWaits(t *testing.T) {
	t.Parallel()
	script := []scripted.Response{
		scripted.Status(429, scripted.ErrorBody("rate_limit_reached_error", "slow down")).Header("retry-after-ms", "5"),
		scripted.Text("Done."),
	}
	rec, cas := recordRun(t, script, t.TempDir(), "-p", "x")
	if rec.code != 0 || !regexp.MustCompile(`retry 1/\d+ in \d`).MatchString(rec.stderr) {
		t.Fatalf("recording: exit %d, want a retry line with its wait\n%s", rec.code, rec.stderr)
	}
	rep := kimi(t, nil, invocation{env: replayEnv, args: []string{"--replay", cas, "--replay-speed", "0", "-p", "x"}})
	if rep.code != 0 || !regexp.MustCompile(`retry 1/\d+: `).MatchString(rep.stderr) || strings.Contains(rep.stderr, " in ") {
		t.Errorf("replay at speed 0: exit %d, want a retry line without a wait\n%s", rep.code, rep.stderr)
	}
}
