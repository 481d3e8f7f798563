//go:build linux

package run_test

import (
	"encoding/base64"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestEscapeTaskOutputEventsSplitNoSecret: a background task prints the config's key where
// the task_output events cut its output (a line longer than an event carries, the key
// across the cut, then a pause: the task waits on a FIFO the next command writes), then the
// key's base64 wrapped into lines, half of the lines before a pause and half after. No event carries
// a known form of the key, nor do the events joined.
func TestEscapeTaskOutputEventsSplitNoSecret(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(work, "p"), 0o600); err != nil {
		t.Fatal(err)
	}
	const read = `k=$(sed -n 's/^api_key = "\(.*\)"$/\1/p' "$HOME/.kimi/config.toml" | head -n 1); `
	task := read + `head -c 4090 /dev/zero | tr '\0' a; printf %s "$k"; cat p >/dev/null; echo; ` +
		`printf '%040d%s' 0 "$k" | base64 -w 20 > b64; head -n 4 b64; cat p >/dev/null; tail -n +5 b64`
	taskID := regexp.MustCompile(`bash-[a-z0-9]+`)
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		switch tools := req.MessagesOf("tool"); len(tools) {
		case 0:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": task, "run_in_background": true, "description": "prints the key in pieces"})))
		case 1, 2:
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{"command": "echo > p"})))
		case 3:
			id := taskID.FindString(messageText(tools[0]))
			return scripted.ToolCalls(scripted.Call("TaskOutput", callArgs(t, map[string]any{"task_id": id, "block": true, "timeout": 60})))
		}
		return scripted.Text("done")
	})
	home := secretsHome(t, srv, "")
	r := kimi(t, srv, invocation{dir: work, env: map[string]string{"HOME": home, "KIMI_BASE_URL": ""},
		args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "go")})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var joined strings.Builder
	for _, e := range testkit.OfType(events(t, r.stdout), "task_output") {
		text, _ := e["text"].(string)
		joined.WriteString(text)
	}
	out := joined.String()
	if !strings.Contains(out, "aaaa") || !strings.Contains(out, "MDAw") {
		t.Fatalf("the task's events are not what the test expects:\n%s", out)
	}
	if strings.Contains(out, fileKey) {
		t.Errorf("the key reached the task_output events:\n%s", out)
	}
	// The stretch of the wrapped encoding that depends on the key alone.
	e := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("0", 40) + fileKey))
	if strings.Contains(strings.ReplaceAll(out, "\n", ""), e[56:94]) {
		t.Errorf("the key's base64 reached the task_output events:\n%s", out)
	}
	if n := strings.Count(out, "[redacted]"); n != 2 {
		t.Errorf("%d [redacted] in the task_output events, want 2:\n%s", n, out)
	}
}
