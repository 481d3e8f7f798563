package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// contents returns the text of every message of request i, in order.
func contents(srv *scripted.Server, i int) []string {
	var out []string
	for _, m := range srv.Requests()[i].Messages() {
		c, _ := m["content"].(string)
		out = append(out, m["role"].(string)+": "+c)
	}
	return out
}

func sessionArgs(dir string, args ...string) []string {
	return append([]string{"--session-dir", dir}, args...)
}

func TestResumeWithSession(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t, scripted.Text("The parser lives in parse.go."), scripted.Text("Tests added."))
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "nightly-1", "-p", "where is the parser?")})
	if r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "nightly-1") {
		t.Errorf("text mode does not name the session on stderr:\n%s", r.stderr)
	}
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "nightly-1", "-p", "add tests for it")})
	if r.code != 0 {
		t.Fatalf("second run: %d %s", r.code, r.stderr)
	}
	got := strings.Join(contents(srv, 1), "\n")
	for _, want := range []string{"user: where is the parser?", "assistant: The parser lives in parse.go.", "user: add tests for it"} {
		if !strings.Contains(got, want) {
			t.Errorf("resumed request lacks %q:\n%s", want, got)
		}
	}
	if res := lastResult(t, r); res["session_id"] != "nightly-1" {
		t.Errorf("session_id = %v", res["session_id"])
	}
	data, err := os.ReadFile(filepath.Join(sessions, "nightly-1", "context.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"role":"_system_prompt"`, `"role":"_checkpoint"`, `"role":"_usage"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("context.jsonl lacks %s", want)
		}
	}
	if strings.Contains(string(data), testKey) {
		t.Errorf("the session file holds the API key")
	}
}

func TestContinueResumesTheLastSuccessfulRun(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.Text("first answer"),
		scripted.Status(500, scripted.ErrorBody("server_error", "down")),
		scripted.Text("third answer"),
	)
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-p", "first task")}); r.code != 0 {
		t.Fatalf("run 1: %d %s", r.code, r.stderr)
	}
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-p", "failing task", "--max-retries", "0")}); r.code != 75 {
		t.Fatalf("run 2: %d %s", r.code, r.stderr)
	}
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-C", "-p", "third task")})
	if r.code != 0 {
		t.Fatalf("run 3: %d %s", r.code, r.stderr)
	}
	// The failed run is named, with how it ended (issue 17 #10).
	if !strings.Contains(r.stderr, "skipped the newer unfinished session") || !strings.Contains(r.stderr, "transient, exit 75") {
		t.Errorf("--continue does not say it skipped the failed run:\n%s", r.stderr)
	}
	got := strings.Join(contents(srv, 2), "\n")
	if !strings.Contains(got, "first task") || strings.Contains(got, "failing task") {
		t.Errorf("--continue did not resume the last successful run:\n%s", got)
	}
}

func TestContinueWithoutSessionIsAUsageError(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: sessionArgs(t.TempDir(), "-C", "-p", "x")})
	if r.code != 2 || !strings.Contains(r.stderr, "no earlier session") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

func TestNoSessionWritesNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home}, args: []string{"--no-session", "--output-format", "stream-json", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var files []string
	filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("--no-session wrote %v", files)
	}
	if res := lastResult(t, r); res["session_id"] != "" {
		t.Errorf("session_id = %v, want empty", res["session_id"])
	}
}

func TestKilledRunRestores(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo step one done"}`)),
		scripted.Reply(scripted.Say("I am halfway through writing the"), scripted.Hang()),
		scripted.Text("Picked up where I left off."),
	)
	// Killed once the second reply has begun to stream: the first step is saved by then.
	r := kimi(t, srv, invocation{dir: work, srv: srv, signal: syscall.SIGKILL, signalAfter: 2, signalOn: "text",
		args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "crashy", "-p", "long task")})
	if r.code != -1 {
		t.Fatalf("exit %d, want killed", r.code)
	}
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "crashy", "-p", "go on")})
	if r.code != 0 {
		t.Fatalf("resume: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := strings.Join(contents(srv, 2), "\n")
	for _, want := range []string{"user: long task", "tool: ", "step one done", "user: go on"} {
		if !strings.Contains(got, want) {
			t.Errorf("restored context lacks %q:\n%s", want, got)
		}
	}
}

func TestDMailRewindsTheContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo exploring a dead end > notes.txt"}`)),
		scripted.ToolCalls(scripted.Call("SendDMail", `{"message":"the config is in cfg/, skip the search","checkpoint_id":1}`)),
		scripted.Text("Done, using cfg/."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--no-session", "--dmail", "--output-format", "stream-json", "-p", "find the config"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	first := strings.Join(contents(srv, 0), "\n")
	if !strings.Contains(first, "CHECKPOINT 0") {
		t.Errorf("the model sees no checkpoint markers:\n%s", first)
	}
	got := strings.Join(contents(srv, 2)[1:], "\n") // the system prompt names SendDMail
	if strings.Contains(got, "dead end") || strings.Contains(got, "SendDMail") {
		t.Errorf("the rewound context still holds the later steps:\n%s", got)
	}
	if !strings.Contains(got, "the config is in cfg/, skip the search") || !strings.Contains(got, "user: find the config") {
		t.Errorf("the D-Mail did not arrive after the rewind:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("files on disk must not be rewound: %v", err)
	}
}

func TestDMailToUnknownCheckpointIsAnErrorResult(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("SendDMail", `{"message":"x","checkpoint_id":99}`)),
		scripted.Text("ok"),
	)
	r := kimi(t, srv, invocation{args: []string{"--no-session", "--dmail", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := strings.Join(contents(srv, 1), "\n")
	if !strings.Contains(got, "tool: ERROR: D-Mail not sent: checkpoint 99 does not exist") {
		t.Errorf("the model was not told the checkpoint is unknown:\n%s", got)
	}
}

func TestCompactionRotatesTheSession(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.Reply(scripted.Say("The parser lives in parse.go."), scripted.Usage(1800, 10, 0)),
		scripted.Text("<current_focus>Writing parser tests.</current_focus>"),
		scripted.Text("Tests written."),
		scripted.Text("Ran them."),
	)
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "s1", "-p", "where is the parser?")}); r.code != 0 {
		t.Fatalf("run 1: %d %s", r.code, r.stderr)
	}
	// The first reply reported 1810 tokens: a 2000-token window (above the system prompt,
	// which must fit) compacts before the turn.
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--session", "s1", "--max-context-size", "2000", "-p", "write tests")})
	if r.code != 0 {
		t.Fatalf("run 2: %d %s", r.code, r.stderr)
	}
	if _, ok := srv.Requests()[1].Body["tools"]; ok {
		t.Errorf("request 2 should be the summary request, without tools")
	}
	evs := events(t, r.stdout)
	begin, end := len(testkit.OfType(evs, "compaction_begin")), len(testkit.OfType(evs, "compaction_end"))
	if begin != 1 || end != 1 {
		t.Errorf("compaction events: %d begin, %d end", begin, end)
	}
	if _, err := os.Stat(filepath.Join(sessions, "s1", "context.jsonl.1")); err != nil {
		t.Errorf("the pre-compaction context was not kept aside: %v", err)
	}
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "s1", "--max-context-size", "100000", "-p", "run them")}); r.code != 0 {
		t.Fatalf("run 3: %d %s", r.code, r.stderr)
	}
	got := strings.Join(contents(srv, 3), "\n")
	if !strings.Contains(got, "Writing parser tests.") || strings.Contains(got, "user: where is the parser?") {
		t.Errorf("resumed after compaction:\n%s", got)
	}
}

func TestBareEnvironmentRunsWithoutASession(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": ""}, args: []string{"--output-format", "stream-json", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !testkit.Any(events(t, r.stdout), "warning", func(e map[string]any) bool {
		return strings.Contains(e["message"].(string), "no session is kept")
	}) {
		t.Errorf("no warning that the session is not kept:\n%s", r.stdout)
	}
	r = kimi(t, srv, invocation{env: map[string]string{"HOME": ""}, args: []string{"-C", "-p", "x"}})
	if r.code != 2 {
		t.Errorf("--continue without a state dir: exit %d", r.code)
	}
}
