package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// A session that finished a run and then lost its history (its context file missing,
// emptied, or left with only a system prompt) never restarts silently (issue 25 #5: -S
// started from scratch without a word, and -C exited 2 when the file was missing): -S and
// -C agree, go on from the prompt, and say so in a warning and in result.session_repairs.
func TestLostHistoryIsSaid(t *testing.T) {
	t.Parallel()
	for _, state := range []struct {
		name string
		// spoil changes the session's context file.
		spoil func(t *testing.T, path string)
		says  string
	}{
		{"missing", func(t *testing.T, p string) { mustRemove(t, p) }, "is missing"},
		{"empty", func(t *testing.T, p string) { mustWrite(t, p, "") }, "is empty"},
		{"system prompt only", func(t *testing.T, p string) {
			mustWrite(t, p, `{"role":"_system_prompt","content":"You are a helpful agent."}`+"\n")
		}, "holds only a system prompt"},
	} {
		for _, how := range []string{"-S", "-C"} {
			t.Run(state.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				work, sessions := t.TempDir(), t.TempDir()
				srv := scripted.New(t, scripted.Text("first answer"), scripted.Text("second answer"))
				if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "s1", "-p", "first task")}); r.code != 0 {
					t.Fatalf("first run: %d %s", r.code, r.stderr)
				}
				state.spoil(t, filepath.Join(sessions, "s1", "context.jsonl"))
				resume := []string{"--session", "s1"}
				if how == "-C" {
					resume = []string{"-C"}
				}
				r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, append(resume, "--output-format", "stream-json", "-p", "second task")...)})
				if r.code != 0 {
					t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
				}
				warned := false
				for _, e := range events(t, r.stdout) {
					if m, _ := e["message"].(string); e["type"] == "warning" && strings.Contains(m, "lost its history") && strings.Contains(m, state.says) {
						warned = true
					}
				}
				if !warned {
					t.Errorf("no warning that the history was lost:\n%s", r.stdout)
				}
				res := lastResult(t, r)
				repairs, _ := res["session_repairs"].([]any)
				if len(repairs) != 1 || !strings.Contains(repairs[0].(string), "lost its history") {
					t.Errorf("session_repairs = %v", res["session_repairs"])
				}
				if res["session_id"] != "s1" {
					t.Errorf("session_id = %v, want the same session", res["session_id"])
				}
				// The run went on from its prompt, and the session holds it now.
				got := strings.Join(contents(srv, 1), "\n")
				if strings.Contains(got, "first task") || !strings.Contains(got, "second task") {
					t.Errorf("second request:\n%s", got)
				}
				data, _ := os.ReadFile(filepath.Join(sessions, "s1", "context.jsonl"))
				if !strings.Contains(string(data), "second task") {
					t.Errorf("the session does not hold the new run:\n%s", data)
				}
			})
		}
	}
}

// A session whose only run never finished (killed before it wrote its prompt) comes back
// with nothing to resume, but it lost nothing: no warning, no repairs.
func TestUnfinishedEmptySessionIsNotLost(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	dir := filepath.Join(sessions, "s1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "kimi-run.json"), `{"id":"s1","created":"2026-01-01T00:00:00Z","started":"2026-01-01T00:00:00Z","outcome":"running","runs":1,"prompt":"x"}`)
	mustWrite(t, filepath.Join(dir, "context.jsonl"), "")
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--session", "s1", "--output-format", "stream-json", "-p", "go")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if res := lastResult(t, r); res["session_repairs"] != nil || strings.Contains(r.stdout, "lost its history") {
		t.Errorf("a session that lost nothing is said to have: %v", res["session_repairs"])
	}
}

// A run stopped by a usage error found after its new session was opened (a cassette that
// cannot be written, an MCP server down under --mcp-strict) drops the session and prints
// the one-line error alone (issue 25 #5: "session is closed" and "record the session's
// outcome ... no such file" came first).
func TestUsageErrorAfterTheSessionOpenedIsOneLine(t *testing.T) {
	t.Parallel()
	dead := mcpConfigFile(t, map[string]any{"dead": map[string]any{"command": "sh", "args": []string{"-c", "exit 3"}}})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"record into a missing dir", []string{"--record", "/nonexistent/dir/f"}, "--record"},
		{"mcp-strict", []string{"--mcp-config-file", dead, "--mcp-strict"}, "--mcp-strict"},
	} {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				sessions := t.TempDir()
				srv := scripted.New(t)
				r := kimi(t, srv, invocation{args: sessionArgs(sessions, append(tt.args, "--output-format", format, "-p", "x")...)})
				if r.code != 2 {
					t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
				}
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
					t.Errorf("stderr is not the one-line error:\n%s", r.stderr)
				}
				if format == "stream-json" {
					if evs := events(t, r.stdout); len(evs) != 1 || evs[0]["type"] != "result" {
						t.Errorf("stdout holds more than the result:\n%s", r.stdout)
					}
				}
				if entries, _ := os.ReadDir(sessions); len(entries) != 0 {
					t.Errorf("the run left %d session(s) behind", len(entries))
				}
			})
		}
	}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
