package run_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// appendStep is a model reply that runs a Shell command appending "step N" to log.txt: a
// side effect that shows how often each step ran.
func appendStep(n int) scripted.Response {
	return scripted.ToolCalls(scripted.CallID(fmt.Sprintf("call_step_%d", n), "Shell", fmt.Sprintf(`{"command":"echo step %d >> log.txt"}`, n)))
}

// TestRetriedJobResumesItsUnfinishedTurn is issue 21 #15: a CI job killed at step 5 and
// retried with the same command line (a stable --session id, as docs/ci.md recommends)
// finishes in the retry without running steps 1–4 again and without asking its prompt twice.
func TestRetriedJobResumesItsUnfinishedTurn(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL and Shell's echo")
	}
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		appendStep(1), appendStep(2), appendStep(3), appendStep(4),
		scripted.Reply(scripted.Hang()), // step 5 of the first attempt: the job is killed here
		appendStep(5), scripted.Text("all five steps done"),
	)
	const prompt = "append five steps to log.txt, one per command"
	job := sessionArgs(sessions, "--session", "job-4711", "-p", prompt)

	first := kimi(t, srv, invocation{dir: work, args: job, signal: syscall.SIGKILL, signalAfter: 5})
	if first.code != -1 && first.code != 137 {
		t.Fatalf("first attempt exit %d, want killed\n%s", first.code, first.stderr)
	}
	if got := listSessions(t, work, sessions); got["job-4711"]["outcome"] != "killed" {
		t.Errorf("after SIGKILL the session lists as %v, want killed", got["job-4711"])
	}

	retry := kimi(t, srv, invocation{dir: work, args: job})
	if retry.code != 0 || strings.TrimSpace(retry.stdout) != "all five steps done" {
		t.Fatalf("retry exit %d, stdout %q\n%s", retry.code, retry.stdout, retry.stderr)
	}
	if !strings.Contains(retry.stderr, "continuing the session's unfinished turn") {
		t.Errorf("the retry does not say it continues the unfinished turn:\n%s", retry.stderr)
	}
	log, err := os.ReadFile(filepath.Join(work, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "step 1\nstep 2\nstep 3\nstep 4\nstep 5\n"; string(log) != want {
		t.Errorf("log.txt = %q, want every step once: %q", log, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls in all, want 5 + 2", len(reqs))
	}
	// The retry's first request carries steps 1–4 and the prompt once.
	var prompts, results int
	for _, m := range reqs[5].Messages() {
		switch {
		case m["role"] == "user" && m["content"] == prompt:
			prompts++
		case m["role"] == "tool":
			results++
		}
	}
	if prompts != 1 || results != 4 {
		t.Errorf("retry's first request: prompt %d time(s), %d tool results; want 1 and 4\n%v", prompts, results, contents(srv, 5))
	}
	if got := listSessions(t, work, sessions); got["job-4711"]["outcome"] != "completed" || got["job-4711"]["runs"] != 2.0 {
		t.Errorf("after the retry the session lists as %v, want completed after 2 runs", got["job-4711"])
	}
}

// TestResumeWithANewPromptAsksIt: a resumed session whose last turn was answered gets the
// new prompt as a new turn, even when it repeats the old one (only an unfinished turn is
// continued).
func TestResumeWithANewPromptAsksIt(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t, scripted.Text("one"), scripted.Text("two"))
	args := sessionArgs(sessions, "--session", "daily", "-p", "say a number")
	for i := range 2 {
		if r := kimi(t, srv, invocation{dir: work, args: args}); r.code != 0 || strings.Contains(r.stderr, "unfinished turn") {
			t.Fatalf("run %d: exit %d\n%s", i+1, r.code, r.stderr)
		}
	}
	if got := strings.Join(contents(srv, 1), "|"); strings.Count(got, "user: say a number") != 2 {
		t.Errorf("second request = %s, want the prompt twice", got)
	}
}

// listSessions runs --list-sessions with NDJSON output and indexes the lines by id.
func listSessions(t *testing.T, work, sessions string) map[string]map[string]any {
	t.Helper()
	r := kimi(t, nil, invocation{dir: work, args: sessionArgs(sessions, "--list-sessions", "--output-format", "stream-json")})
	if r.code != 0 {
		t.Fatalf("--list-sessions: exit %d\n%s", r.code, r.stderr)
	}
	out := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("--list-sessions line %q: %v", line, err)
		}
		out[m["id"].(string)] = m
	}
	return out
}

// sessionOf reads the session id from a stream-json run's init event.
func sessionOf(t *testing.T, stdout string) string {
	t.Helper()
	line, _, _ := strings.Cut(stdout, "\n")
	var init struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(line), &init); err != nil || init.Type != "init" || init.SessionID == "" {
		t.Fatalf("first stdout line %q is not an init with a session id", line)
	}
	return init.SessionID
}

// TestContinueNamesWhatItSkipped is issue 17 #10: --continue after a killed run says which
// session it resumes, which newer unfinished one it passed over, and how to resume that one;
// with no run that exited 0, its usage error points at the unfinished session.
func TestContinueNamesWhatItSkipped(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			work, sessions := t.TempDir(), t.TempDir()
			srv := scripted.New(t,
				scripted.Reply(scripted.Say("working on it"), scripted.Hang()),
				scripted.Text("first answer"),
				scripted.Reply(scripted.Say("working on it"), scripted.Hang()),
				scripted.Text("continued"),
			)
			run := func(sig os.Signal, args ...string) string {
				return sessionOf(t, kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, append([]string{"--output-format", "stream-json"}, args...)...),
					signal: sig}).stdout)
			}
			lost := run(syscall.SIGKILL, "-p", "nightly")

			// Nothing exited 0 yet: the error names the killed session and the command for it.
			r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", format, "-C", "-p", "go on")})
			if r.code != 2 || !strings.Contains(r.stderr, "no earlier session") || !strings.Contains(r.stderr, "kimi-run --session "+lost) {
				t.Errorf("--continue without a good run: exit %d\n%s", r.code, r.stderr)
			}

			done := run(nil, "-p", "first task")
			newer := run(syscall.SIGKILL, "-p", "second task")

			before := len(srv.Requests())
			r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", format, "-C", "-p", "third task")})
			if r.code != 0 {
				t.Fatalf("--continue exit %d\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"continuing session " + done, "skipped the newer unfinished session " + newer, "killed", "kimi-run --session " + newer} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, lost) {
				t.Errorf("stderr names the killed session %s, which is older than %s:\n%s", lost, done, r.stderr)
			}
			if got := strings.Join(contents(srv, before), "\n"); !strings.Contains(got, "first task") || strings.Contains(got, "second task") {
				t.Errorf("--continue did not resume the last run that exited 0:\n%s", got)
			}
		})
	}
}
