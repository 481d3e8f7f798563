package run_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestListAndShowSessions is issue 21 #13: the sessions of a work dir listed (id, start,
// outcome, first prompt line) and one printed, as text or NDJSON, without a key, a model or
// a hand-read JSONL file.
func TestListAndShowSessions(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("call_ls", "Shell", `{"command":"echo listed"}`)),
		scripted.Text("Found it."),
		scripted.Status(500, scripted.ErrorBody("server_error", "down")),
	)
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "good", "-p", "find the parser\nin the repo")}); r.code != 0 {
		t.Fatalf("good run: exit %d\n%s", r.code, r.stderr)
	}
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "bad", "--max-retries", "0", "-p", "fail please")}); r.code != 75 {
		t.Fatalf("bad run: exit %d\n%s", r.code, r.stderr)
	}
	// No key or model needed: housekeeping makes no model call.
	noKey := map[string]string{"KIMI_API_KEY": "", "KIMI_MODEL_NAME": ""}

	r := kimi(t, nil, invocation{dir: work, env: noKey, args: sessionArgs(sessions, "--list-sessions")})
	if r.code != 0 {
		t.Fatalf("--list-sessions: exit %d\n%s", r.code, r.stderr)
	}
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "ID") {
		t.Fatalf("--list-sessions text:\n%s", r.stdout)
	}
	// Newest first.
	for i, want := range []string{"bad", "good"} {
		if !strings.HasPrefix(rows[i+1], want+" ") {
			t.Errorf("row %d = %q, want session %s", i+1, rows[i+1], want)
		}
	}
	if !strings.Contains(rows[1], "transient (75)") || !strings.Contains(rows[1], "fail please") {
		t.Errorf("row of the failed run = %q", rows[1])
	}
	if !strings.Contains(rows[2], "completed (0)") || !strings.Contains(rows[2], "find the parser") || strings.Contains(rows[2], "in the repo") {
		t.Errorf("row of the good run = %q, want its outcome and the prompt's first line only", rows[2])
	}

	list := listSessions(t, work, sessions)
	good := list["good"]
	if good["outcome"] != "completed" || good["exit_code"] != 0.0 || good["prompt"] != "find the parser" || good["resume"] != "kimi-run --session good" {
		t.Errorf("NDJSON line of the good run = %v", good)
	}
	if list["bad"]["outcome"] != "transient" || list["bad"]["exit_code"] != 75.0 {
		t.Errorf("NDJSON line of the failed run = %v", list["bad"])
	}

	r = kimi(t, nil, invocation{dir: work, env: noKey, args: sessionArgs(sessions, "--show-session", "good")})
	if r.code != 0 {
		t.Fatalf("--show-session: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"session good", "outcome completed, exit 0", "--- user\nfind the parser\nin the repo", "-> Shell {\"command\":\"echo listed\"} (call_ls)",
		"--- tool result Shell (call_ls)\n", "listed\n", "--- assistant\nFound it.", "=== checkpoint 0 (--rewind 0)\n\n--- user", "=== checkpoint 2 (--rewind 2)\n\n--- assistant\nFound it."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--show-session text lacks %q:\n%s", want, r.stdout)
		}
	}

	r = kimi(t, nil, invocation{dir: work, env: noKey, args: sessionArgs(sessions, "--show-session", "good", "--output-format", "stream-json")})
	if r.code != 0 {
		t.Fatalf("--show-session NDJSON: exit %d\n%s", r.code, r.stderr)
	}
	var roles []string
	for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		if i == 0 {
			if m["type"] != "session" || m["id"] != "good" {
				t.Errorf("first line = %v, want the session", m)
			}
			continue
		}
		if m["type"] == "checkpoint" {
			// Where --rewind can take the session back to (issue 32 #4).
			roles = append(roles, fmt.Sprintf("checkpoint%v", m["id"]))
			if want := fmt.Sprintf("kimi-run --session good --rewind %v", m["id"]); m["rewind"] != want {
				t.Errorf("checkpoint line = %v, want rewind %q", m, want)
			}
			continue
		}
		roles = append(roles, m["role"].(string))
		if m["role"] == "assistant" && m["tool_calls"] != nil {
			call := m["tool_calls"].([]any)[0].(map[string]any)
			if call["name"] != "Shell" || call["id"] != "call_ls" {
				t.Errorf("tool call line = %v", m)
			}
		}
	}
	if got := strings.Join(roles, " "); got != "system checkpoint0 user checkpoint1 assistant tool checkpoint2 assistant" {
		t.Errorf("message roles = %q", got)
	}

	for _, bad := range []struct {
		args []string
		want string
		code int
	}{
		{args: []string{"--show-session", "nope"}, want: "no session nope", code: 2},
		{args: []string{"--show-session", "../x"}, want: "invalid session id", code: 2},
		{args: []string{"--list-sessions", "-p", "do it"}, want: "takes no prompt", code: 2},
		{args: []string{"--list-sessions", "do", "it"}, want: "takes no prompt", code: 2},
		{args: []string{"--list-sessions", "--session", "good"}, want: "cannot be combined", code: 2},
		{args: []string{"--list-sessions", "--show-session", "good"}, want: "cannot be combined", code: 2},
	} {
		r := kimi(t, nil, invocation{dir: work, env: noKey, args: sessionArgs(sessions, bad.args...)})
		if r.code != bad.code || !strings.Contains(r.stderr, bad.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", bad.args, r.code, r.stdout, r.stderr, bad.code, bad.want)
		}
	}
	// A work dir without sessions lists nothing, successfully.
	if r := kimi(t, nil, invocation{env: noKey, args: sessionArgs(t.TempDir(), "--list-sessions", "--output-format", "stream-json")}); r.code != 0 || r.stdout != "" {
		t.Errorf("empty listing: exit %d, stdout %q", r.code, r.stdout)
	}
}
