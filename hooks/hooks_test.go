package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools"
)

func engine(t *testing.T, hs ...Hook) (*Engine, *testkit.Recorder) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hook commands are POSIX shell")
	}
	e, err := New(hs)
	if err != nil {
		t.Fatal(err)
	}
	rec := &testkit.Recorder{}
	e.WorkDir, e.SessionID, e.Sink = t.TempDir(), "sess-1", rec
	e.Launcher = &launch.Launcher{Environ: []string{"PATH=" + os.Getenv("PATH"), "HOOK_TEST=yes"}}
	return e, rec
}

func TestFireDecisions(t *testing.T) {
	tests := []struct {
		name    string
		command string
		want    Outcome
		warning string
	}{
		{"allow silently", "true", Outcome{}, ""},
		{"stdout is context", "echo 'lint is clean'", Outcome{Context: "lint is clean"}, ""},
		{"exit 2 blocks with stderr", "echo 'no .env edits' >&2; echo ignored; exit 2", Outcome{Blocked: true, Reason: "no .env edits", By: "echo 'no .env edits' >&2; echo ignored; exit 2"}, ""},
		{"json deny", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"use rg"}}'`,
			Outcome{Blocked: true, Reason: "use rg", By: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"…`}, ""},
		{"json allow with context", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","additionalContext":"see docs/x.md"}}'`,
			Outcome{Context: "see docs/x.md"}, ""},
		{"deny needs exit 0", `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'; exit 1`, Outcome{}, "exited 1"},
		{"other exit fails open", "echo broken >&2; exit 3", Outcome{}, "exited 3: broken"},
		{"missing program fails open", "/no/such/hook-program", Outcome{}, "exited 127"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, rec := engine(t, Hook{Event: PreToolUse, Command: tt.command})
			got := e.Fire(context.Background(), PreToolUse, "Shell", map[string]any{"tool_name": "Shell"})
			if got != tt.want {
				t.Errorf("outcome = %+v, want %+v", got, tt.want)
			}
			hs := rec.Of(event.TypeHook)
			if len(hs) != 1 {
				t.Fatalf("%d hook events", len(hs))
			}
			h := hs[0].Data.(event.Hook)
			if h.Event != PreToolUse || h.Target != "Shell" || h.Blocked != tt.want.Blocked || h.Command == "" {
				t.Errorf("hook event = %+v", h)
			}
			ws := rec.Of(event.TypeWarning)
			switch {
			case tt.warning == "" && len(ws) > 0:
				t.Errorf("unexpected warning %v", ws[0].Data)
			case tt.warning != "" && (len(ws) != 1 || !strings.Contains(ws[0].Data.(event.Warning).Message, tt.warning)):
				t.Errorf("warnings = %v, want one with %q", ws, tt.warning)
			}
		})
	}
}

func TestFireInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "input.json")
	e, _ := engine(t, Hook{Event: PreToolUse, Command: "cat > " + out + "; env | grep HOOK_TEST >> " + out + "; pwd >> " + out})
	e.Fire(context.Background(), PreToolUse, "WriteFile", map[string]any{
		"tool_name": "WriteFile", "tool_input": json.RawMessage(`{"path":".env"}`), "tool_call_id": "call_1"})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 2)
	var in map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &in); err != nil {
		t.Fatalf("stdin %q: %v", lines[0], err)
	}
	if in["session_id"] != "sess-1" || in["cwd"] != e.WorkDir || in["hook_event_name"] != "PreToolUse" ||
		in["tool_name"] != "WriteFile" || in["tool_call_id"] != "call_1" || in["tool_input"].(map[string]any)["path"] != ".env" {
		t.Errorf("input = %v", in)
	}
	if !strings.Contains(lines[1], "HOOK_TEST=yes") || !strings.Contains(lines[1], e.WorkDir) {
		t.Errorf("the command ran without its environment or outside the work dir: %q", lines[1])
	}
}

func TestMatcher(t *testing.T) {
	dir := t.TempDir()
	mark := func(name string) string { return "touch " + filepath.Join(dir, name) }
	e, _ := engine(t,
		Hook{Event: PreToolUse, Matcher: "WriteFile|StrReplaceFile", Command: mark("edit")},
		Hook{Event: PreToolUse, Matcher: "^Task$", Command: mark("task")},
		Hook{Event: PreToolUse, Command: mark("all")},
		Hook{Event: PreToolUse, Command: mark("all")}, // the same command runs once
		Hook{Event: PostToolUse, Command: mark("post")},
	)
	ran := func() []string {
		var names []string
		for _, n := range []string{"edit", "task", "all", "post"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				names = append(names, n)
				os.Remove(filepath.Join(dir, n))
			}
		}
		return names
	}
	for _, tt := range []struct {
		target string
		want   string
	}{{"StrReplaceFile", "edit all"}, {"Agent", "task all"}, {"Shell", "all"}} {
		e.Fire(context.Background(), PreToolUse, tt.target, nil)
		if got := strings.Join(ran(), " "); got != tt.want {
			t.Errorf("%s ran %q, want %q", tt.target, got, tt.want)
		}
	}
	if e.Has(Stop) || !e.Has(PostToolUse) {
		t.Error("Has is wrong")
	}
	var none *Engine
	if o := none.Fire(context.Background(), Stop, "", nil); o != (Outcome{}) || none.Has(Stop) {
		t.Error("a nil engine fired")
	}
}

func TestNewRejectsBadHooks(t *testing.T) {
	tests := []struct {
		hook Hook
		want string
	}{
		{Hook{Event: "PreToolCall", Command: "x"}, "unknown event"},
		{Hook{Event: Stop, Command: "  "}, "command is empty"},
		{Hook{Event: PreToolUse, Command: "x", Matcher: "(?=x)"}, "not a valid regular expression"},
		{Hook{Event: PreToolUse, Command: "x", Timeout: 601 * time.Second}, "1 to 600 seconds"},
	}
	for _, tt := range tests {
		if _, err := New([]Hook{{Event: Stop, Command: "true"}, tt.hook}); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "hooks[1]") {
			t.Errorf("New(%+v) error %v, want %q", tt.hook, err, tt.want)
		}
	}
	if _, err := New([]Hook{{Event: Notification, Command: "notify-send hi"}}); err != nil {
		t.Errorf("Notification is refused: %v", err)
	}
}

// fakeTool counts its calls.
type fakeTool struct {
	calls int
	res   tools.Result
}

func (f *fakeTool) Name() string            { return "WriteFile" }
func (f *fakeTool) Description() string     { return "writes" }
func (f *fakeTool) Schema() json.RawMessage { return json.RawMessage(`{}`) }
func (f *fakeTool) Facts() tools.Facts      { return tools.Facts{WritesFiles: true, PathArg: "path"} }
func (f *fakeTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	f.calls++
	return f.res, nil
}

func TestWrap(t *testing.T) {
	dir := t.TempDir()
	post := filepath.Join(dir, "post.json")
	e, _ := engine(t,
		Hook{Event: PreToolUse, Matcher: "WriteFile", Command: `grep -q '"path":".env"' && { echo "leave .env alone" >&2; exit 2; }; echo "remember the style guide"`},
		Hook{Event: PostToolUse, Command: "cat > " + post},
		Hook{Event: PostToolUseFailure, Command: "echo failure noted"},
	)
	inner := &fakeTool{res: tools.Text("written")}
	ts := Wrap(e, []tools.Tool{inner})
	ctx := tools.WithCallID(context.Background(), "call_9")

	res, err := ts[0].Run(ctx, json.RawMessage(`{"path":".env","content":"x"}`))
	if err != nil || !res.IsError || res.Output != "leave .env alone" || inner.calls != 0 {
		t.Errorf("blocked call: %+v, %v, tool ran %d times", res, err, inner.calls)
	}
	res, err = ts[0].Run(ctx, json.RawMessage(`{"path":"a.txt","content":"x"}`))
	if err != nil || res.IsError || inner.calls != 1 || !strings.HasPrefix(res.Output, "written") || !strings.Contains(res.Output, "remember the style guide") {
		t.Errorf("allowed call: %+v, %v", res, err)
	}
	b, _ := os.ReadFile(post)
	var in map[string]any
	if json.Unmarshal(b, &in) != nil || in["tool_output"] != "written" || in["tool_call_id"] != "call_9" || in["hook_event_name"] != "PostToolUse" {
		t.Errorf("PostToolUse input = %s", b)
	}
	// An error result is still a result: PostToolUse fires, with is_error set, and
	// PostToolUseFailure does not (Kimi CLI's soul/toolset.py fires it only when the tool
	// raises, and PostToolUse after every result returned).
	inner.res = tools.Errorf("disk full")
	res, _ = ts[0].Run(ctx, json.RawMessage(`{"path":"b.txt","content":"x"}`))
	if !res.IsError || strings.Contains(res.Output, "failure noted") {
		t.Errorf("error result: %+v", res)
	}
	b, _ = os.ReadFile(post)
	in = nil
	if json.Unmarshal(b, &in) != nil || in["tool_output"] != "disk full" || in["is_error"] != true || in["hook_event_name"] != "PostToolUse" {
		t.Errorf("PostToolUse input for an error result = %s", b)
	}
	if got := Wrap(&Engine{}, []tools.Tool{inner}); got[0] != tools.Tool(inner) {
		t.Error("tools were wrapped without tool hooks")
	}
}
