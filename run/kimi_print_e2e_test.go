package run_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The examples of Kimi CLI's print-mode documentation, run unchanged (with kimi-run as the
// program name) against the scripted server.

// kimiLines splits a Kimi-format stdout into its lines, failing on any that is not a JSON
// object with a role: Kimi consumers parse every line as a message.
func kimiLines(t *testing.T, stdout string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["role"] == nil {
			t.Fatalf("stdout line is not a Kimi message: %q (%v)", l, err)
		}
		lines = append(lines, l)
	}
	return lines
}

func TestKimiDocTextExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.py"), []byte("print('hi')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "util.py"), []byte("x = 1\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		stdin  *string
		script []scripted.Response
		stdout string
		// user is what the model must have been asked (a part of the last user message).
		user         string
		quietStderr  bool
		wantRequests int
	}{
		{name: "print -p", args: []string{"--print", "-p", "List all Python files in the current directory"},
			script: []scripted.Response{
				scripted.ToolCalls(scripted.Call("Glob", `{"pattern":"*.py"}`)),
				scripted.Text("app.py and util.py."),
			},
			stdout: "app.py and util.py.\n", user: "List all Python files", wantRequests: 2},
		{name: "print -c", args: []string{"--print", "-c", "List all Python files in the current directory"},
			script: []scripted.Response{scripted.Text("app.py and util.py.")},
			stdout: "app.py and util.py.\n", user: "List all Python files", wantRequests: 1},
		{name: "stdin", args: []string{"--print"}, stdin: ptr("Explain what this code does\n"),
			script: []scripted.Response{scripted.Text("It prints hi.")},
			stdout: "It prints hi.\n", user: "Explain what this code does", wantRequests: 1},
		{name: "final message only", args: []string{"--print", "-p", "Give me a Git commit message based on the current changes", "--final-message-only"},
			script: []scripted.Response{
				scripted.Reply(scripted.Say("Let me look at the changes first."), scripted.Call("Shell", `{"command":"ls"}`)),
				scripted.Text("feat: add util module"),
			},
			stdout: "feat: add util module\n", user: "Git commit message", wantRequests: 2},
		{name: "quiet", args: []string{"--quiet", "-p", "Give me a Git commit message based on the current changes"},
			script: []scripted.Response{
				scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`)),
				scripted.Text("feat: add util module"),
			},
			stdout: "feat: add util module\n", user: "Git commit message", quietStderr: true, wantRequests: 2},
		{name: "yolo and friends", args: []string{"--print", "--yolo", "-y", "--yes", "--auto-approve", "--afk", "-p", "Add type annotations to util.py"},
			script: []scripted.Response{
				scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"util.py","content":"x: int = 1\n"}`)),
				scripted.Text("Annotated."),
			},
			stdout: "Annotated.\n", user: "type annotations", wantRequests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			for _, f := range []string{"app.py", "util.py"} {
				b, _ := os.ReadFile(filepath.Join(dir, f))
				os.WriteFile(filepath.Join(work, f), b, 0o644)
			}
			srv := scripted.New(t, tt.script...)
			r := kimi(t, srv, invocation{dir: work, args: tt.args, stdin: tt.stdin})
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if r.stdout != tt.stdout {
				t.Errorf("stdout = %q, want %q", r.stdout, tt.stdout)
			}
			if tt.quietStderr && r.stderr != "" {
				t.Errorf("--quiet: stderr = %q, want nothing", r.stderr)
			}
			if n := len(srv.Requests()); n != tt.wantRequests {
				t.Fatalf("%d requests, want %d", n, tt.wantRequests)
			}
			users := userPrompts(srv, 0)
			if len(users) == 0 || !strings.Contains(users[len(users)-1], tt.user) {
				t.Errorf("the model was asked %q, want it to contain %q", users, tt.user)
			}
		})
	}
}

func TestKimiDocStreamJSONExamples(t *testing.T) {
	t.Parallel()
	t.Run("hello", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Text("Hello! How can I help you?"))
		r := kimi(t, srv, invocation{args: []string{"--print", "-p", "Hello", "--output-format=stream-json"}})
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if want := `{"role":"assistant","content":"Hello! How can I help you?"}` + "\n"; r.stdout != want {
			t.Errorf("stdout = %q, want %q", r.stdout, want)
		}
	})
	t.Run("tool calls", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "file1.py"), nil, 0o644)
		os.WriteFile(filepath.Join(dir, "file2.py"), nil, 0o644)
		srv := scripted.New(t,
			scripted.Reply(scripted.Say("Let me check the current directory."), scripted.CallID("tc_1", "Shell", `{"command":"ls"}`)),
			scripted.Text("There are two Python files in the current directory."),
		)
		r := kimi(t, srv, invocation{dir: dir, args: []string{"--print", "-p", "What is here?", "--output-format=stream-json"}})
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lines := kimiLines(t, r.stdout)
		if len(lines) != 3 {
			t.Fatalf("%d lines, want 3:\n%s", len(lines), r.stdout)
		}
		if want := `{"role":"assistant","content":"Let me check the current directory.","tool_calls":[{"type":"function","id":"tc_1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}`; lines[0] != want {
			t.Errorf("line 1 = %s\nwant     %s", lines[0], want)
		}
		// Kimi's key order (role, content, tool_call_id) and Kimi's tool result parts, as in
		// Kimi CLI's own example of this exchange.
		if want := `{"role":"tool","content":[{"type":"text","text":"<system>Command executed successfully.</system>"},{"type":"text","text":"file1.py\nfile2.py\n"}],"tool_call_id":"tc_1"}`; lines[1] != want {
			t.Errorf("line 2 = %s\nwant     %s", lines[1], want)
		}
		if want := `{"role":"assistant","content":"There are two Python files in the current directory."}`; lines[2] != want {
			t.Errorf("line 3 = %s", lines[2])
		}
	})
	t.Run("json input", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Text("Hello! How can I help you?"))
		r := kimi(t, srv, invocation{stdin: ptr(`{"role":"user","content":"Hello"}` + "\n"),
			args: []string{"--print", "--input-format=stream-json", "--output-format=stream-json"}})
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if want := `{"role":"assistant","content":"Hello! How can I help you?"}` + "\n"; r.stdout != want {
			t.Errorf("stdout = %q, want %q", r.stdout, want)
		}
		if u := userPrompts(srv, 0); len(u) != 1 || u[0] != "Hello" {
			t.Errorf("user messages = %q", u)
		}
	})
	t.Run("retry on exit 75", func(t *testing.T) {
		t.Parallel()
		srv := scripted.New(t, scripted.Status(503, scripted.ErrorBody("server_error", "overloaded")).Forever())
		r := kimi(t, srv, invocation{args: []string{"--print", "-p", "Run task"}})
		if r.code != 75 {
			t.Fatalf("exit %d, want 75 (retryable): %s", r.code, r.stderr)
		}
	})
}

func TestKimiStreamJSONShapes(t *testing.T) {
	t.Parallel()
	// web serves the pages FetchURL reads.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "plain words")
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body><p>Page words.</p></body></html>")
		case "/empty":
			w.Header().Set("Content-Type", "text/html")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(web.Close)
	fetch := func(id, p string) scripted.Part {
		return scripted.CallID(id, "FetchURL", `{"url":"`+web.URL+p+`"}`)
	}
	tests := []struct {
		name   string
		flags  []string // before the prompt
		script []scripted.Response
		// order is the role of each line; tool lines come as their calls finish.
		order      string
		assistants []string          // the assistant lines, in order
		tools      map[string]string // tool lines by call id; a "~" prefix: the line contains the rest
	}{
		{name: "thinking makes a list of parts",
			script: []scripted.Response{
				scripted.Reply(scripted.Think("The user wants a listing."), scripted.Say("Let me look."), scripted.CallID("c1", "Shell", `{"command":"echo hi"}`)),
				scripted.Text("Done."),
			},
			order: "assistant tool assistant",
			assistants: []string{
				`{"role":"assistant","content":[{"type":"think","think":"The user wants a listing.","encrypted":null},{"type":"text","text":"Let me look."}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"echo hi\"}"}}]}`,
				`{"role":"assistant","content":"Done."}`,
			},
			// Kimi CLI's Shell: its message as a <system> part, then the output as printed.
			tools: map[string]string{"c1": `{"role":"tool","content":[{"type":"text","text":"<system>Command executed successfully.</system>"},{"type":"text","text":"hi\n"}],"tool_call_id":"c1"}`}},
		{name: "tool calls alone have empty content; errors are system parts",
			script: []scripted.Response{
				scripted.ToolCalls(scripted.CallID("a", "Shell", `{"command":"echo boom; exit 3"}`), scripted.CallID("b", "ReadFile", `{"path":"missing.txt"}`)),
				scripted.Text("Both failed."),
			},
			order: "assistant tool tool assistant",
			assistants: []string{
				`{"role":"assistant","content":[],"tool_calls":[{"type":"function","id":"a","function":{"name":"Shell","arguments":"{\"command\":\"echo boom; exit 3\"}"}},{"type":"function","id":"b","function":{"name":"ReadFile","arguments":"{\"path\":\"missing.txt\"}"}}]}`,
				`{"role":"assistant","content":"Both failed."}`,
			},
			tools: map[string]string{
				"a": `{"role":"tool","content":[{"type":"text","text":"<system>ERROR: Command failed with exit code: 3.</system>"},{"type":"text","text":"boom\n"}],"tool_call_id":"a"}`,
				"b": "{\"role\":\"tool\",\"content\":\"<system>ERROR: `missing.txt` does not exist.</system>\",\"tool_call_id\":\"b\"}",
			}},
		{name: "Kimi CLI's wording of each built-in tool's result",
			script: []scripted.Response{
				scripted.ToolCalls(scripted.CallID("w", "WriteFile", `{"path":"notes.txt","content":"one\ntwo\n"}`)),
				scripted.ToolCalls(scripted.CallID("e", "StrReplaceFile", `{"path":"notes.txt","edit":{"old":"two","new":"2"}}`)),
				scripted.ToolCalls(scripted.CallID("m", "StrReplaceFile", `{"path":"notes.txt","edit":{"old":"three","new":"3"}}`)),
				scripted.ToolCalls(scripted.CallID("r", "ReadFile", `{"path":"notes.txt"}`)),
				scripted.ToolCalls(scripted.CallID("g", "Glob", `{"pattern":"*.txt"}`)),
				scripted.ToolCalls(scripted.CallID("p", "WriteFile", `{"path":"no/such/dir/x.txt","content":"x"}`), scripted.CallID("x", "StrReplaceFile", `{"path":"gone.txt","edit":{"old":"a","new":"b"}}`)),
				scripted.ToolCalls(scripted.CallID("q", "Shell", `{"command":"true"}`)),
				scripted.ToolCalls(scripted.CallID("t", "AskUserQuestion", `{"questions":[{"question":"Which?","options":[{"label":"a"},{"label":"b"}]}]}`)),
				scripted.ToolCalls(scripted.CallID("d", "SetTodoList", `{"todos":[{"title":"ship","status":"pending"}]}`)),
				scripted.Text("Done."),
			},
			order: "assistant tool assistant tool assistant tool assistant tool assistant tool assistant tool tool assistant tool assistant tool assistant tool assistant",
			tools: map[string]string{
				"w": `{"role":"tool","content":"<system>File successfully overwritten. Current size: 8 bytes.</system>","tool_call_id":"w"}`,
				"e": `{"role":"tool","content":"<system>File successfully edited. Applied 1 edit(s) with 1 total replacement(s).</system>","tool_call_id":"e"}`,
				"m": `{"role":"tool","content":"<system>ERROR: No replacements were made. The old string was not found in the file.</system>","tool_call_id":"m"}`,
				"r": `{"role":"tool","content":[{"type":"text","text":"<system>2 lines read from file starting from line 1. Total lines in file: 2. End of file reached.</system>"},{"type":"text","text":"     1\tone\n     2\t2\n"}],"tool_call_id":"r"}`,
				"g": "{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"<system>Found 1 matches for pattern `*.txt`.</system>\"},{\"type\":\"text\",\"text\":\"notes.txt\"}],\"tool_call_id\":\"g\"}",
				"p": "{\"role\":\"tool\",\"content\":\"<system>ERROR: `no/such/dir/x.txt` parent directory does not exist.</system>\",\"tool_call_id\":\"p\"}",
				"x": "{\"role\":\"tool\",\"content\":\"<system>ERROR: `gone.txt` does not exist.</system>\",\"tool_call_id\":\"x\"}",
				// An empty success is Kimi's one-line system message (issue 18 #3).
				"q": `{"role":"tool","content":"<system>Command executed successfully.</system>","tool_call_id":"q"}`,
				"t": `{"role":"tool","content":"{\"answers\": {}, \"note\": \"Nobody is present to answer in this unattended run. Decide for yourself and say what you decided.\"}","tool_call_id":"t"}`,
				"d": `{"role":"tool","content":[{"type":"text","text":"<system>Todo list updated</system>"},{"type":"text","text":"Todo list updated"}],"tool_call_id":"d"}`,
			}},
		{name: "Kimi CLI's wording of Grep, FetchURL, Agent and SendDMail results",
			flags: []string{"--dmail"},
			script: []scripted.Response{
				scripted.ToolCalls(scripted.CallID("w", "WriteFile", `{"path":"notes.txt","content":"one\ntwo\n"}`)),
				// tools/file/grep_local.py: the lines as the output; notes, or "No matches found",
				// as the message; rg's failures as "Failed to grep".
				scripted.ToolCalls(
					scripted.CallID("gc", "Grep", `{"pattern":"two","output_mode":"content"}`),
					scripted.CallID("gn", "Grep", `{"pattern":"three"}`),
					scripted.CallID("gk", "Grep", `{"pattern":"o","output_mode":"count_matches"}`),
					scripted.CallID("gh", "Grep", `{"pattern":"o","output_mode":"content","head_limit":1}`),
					scripted.CallID("gm", "Grep", `{"pattern":"x","path":"missing"}`)),
				// tools/web/fetch.py: plain text in full, HTML's extracted text, an HTTP error
				// status, an empty body.
				scripted.ToolCalls(fetch("fp", "/plain"), fetch("fh", "/page"), fetch("f4", "/gone"), fetch("fe", "/empty")),
				// tools/agent/__init__.py: a failed task is "Failed to run agent".
				scripted.ToolCalls(
					scripted.CallID("ae", "Agent", `{"description":"nothing","prompt":" "}`),
					scripted.CallID("au", "Agent", `{"description":"odd","prompt":"go","subagent_type":"nope"}`)),
				scripted.ToolCalls(scripted.CallID("as", "Agent", `{"description":"look","prompt":"look around"}`)),
				scripted.Text("sub answer"), // the subagent's reply
				// tools/dmail/__init__.py: its success message is written for the model, which
				// reads it only when the rewind did not happen.
				scripted.ToolCalls(scripted.CallID("du", "SendDMail", `{"message":"skip it","checkpoint_id":99}`)),
				scripted.ToolCalls(scripted.CallID("ds", "SendDMail", `{"message":"skip it","checkpoint_id":0}`)),
				scripted.Text("Done."),
			},
			order: "assistant tool assistant tool tool tool tool tool assistant tool tool tool tool assistant tool tool assistant tool assistant tool assistant tool assistant",
			tools: map[string]string{
				"gc": `{"role":"tool","content":"notes.txt:2:two","tool_call_id":"gc"}`,
				"gn": `{"role":"tool","content":"<system>No matches found</system>","tool_call_id":"gn"}`,
				"gk": `{"role":"tool","content":[{"type":"text","text":"<system>Found 2 total occurrences across 1 files.</system>"},{"type":"text","text":"notes.txt:2"}],"tool_call_id":"gk"}`,
				"gh": `{"role":"tool","content":[{"type":"text","text":"<system>Results truncated to 1 lines (total: 2). Use offset=1 to see more.</system>"},{"type":"text","text":"notes.txt:1:one"}],"tool_call_id":"gh"}`,
				"gm": `{"role":"tool","content":"<system>ERROR: Failed to grep. Error: missing: no such file or directory</system>","tool_call_id":"gm"}`,
				"fp": `{"role":"tool","content":[{"type":"text","text":"<system>The returned content is the full content of the page.</system>"},{"type":"text","text":"plain words"}],"tool_call_id":"fp"}`,
				"fh": `{"role":"tool","content":[{"type":"text","text":"<system>The returned content is the main text content extracted from the page.</system>"},{"type":"text","text":"Page words."}],"tool_call_id":"fh"}`,
				"f4": `{"role":"tool","content":"<system>ERROR: Failed to fetch URL. Status: 404. This may indicate the page is not accessible or the server is down.</system>","tool_call_id":"f4"}`,
				"fe": `{"role":"tool","content":"<system>The response body is empty.</system>","tool_call_id":"fe"}`,
				"ae": `{"role":"tool","content":"<system>ERROR: Failed to run agent: prompt is empty</system>","tool_call_id":"ae"}`,
				"au": `~{"role":"tool","content":"<system>ERROR: Failed to run agent: unknown subagent_type \"nope\"`,
				"as": `{"role":"tool","content":"agent_id: as\nresumed: false\nactual_subagent_type: coder\nstatus: completed\n\n[summary]\nsub answer","tool_call_id":"as"}`,
				"du": `~{"role":"tool","content":"<system>ERROR: Failed to send D-Mail. Error: checkpoint 99 does not exist`,
				"ds": `{"role":"tool","content":"<system>If you see this message, the D-Mail was NOT sent successfully. This may be because some other tool that needs approval was rejected.</system>","tool_call_id":"ds"}`,
			}},
		{name: "a retried step is written once",
			script: []scripted.Response{
				scripted.Reply(scripted.Say("half an ans"), scripted.Cut()),
				scripted.Text("A whole answer."),
			},
			order:      "assistant",
			assistants: []string{`{"role":"assistant","content":"A whole answer."}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.script...)
			args := append([]string{"--print", "--output-format", "stream-json"}, tt.flags...)
			r := kimi(t, srv, invocation{args: append(args, "-p", "go")})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var order, assistants []string
			tools := map[string]string{}
			for _, l := range kimiLines(t, r.stdout) {
				var m map[string]any
				json.Unmarshal([]byte(l), &m)
				role := m["role"].(string)
				order = append(order, role)
				if role == "tool" {
					tools[m["tool_call_id"].(string)] = l
				} else {
					assistants = append(assistants, l)
				}
			}
			if got := strings.Join(order, " "); got != tt.order {
				t.Fatalf("lines are %q, want %q:\n%s", got, tt.order, r.stdout)
			}
			for i, want := range tt.assistants {
				if assistants[i] != want {
					t.Errorf("assistant line %d = %s\nwant %s", i+1, assistants[i], want)
				}
			}
			for id, want := range tt.tools {
				got := tools[id]
				if w, ok := strings.CutPrefix(want, "~"); ok {
					if !strings.HasPrefix(got, w) {
						t.Errorf("tool line %s = %s\nwant it to start with %s", id, got, w)
					}
				} else if got != want {
					t.Errorf("tool line %s = %s\nwant %s", id, got, want)
				}
			}
		})
	}
}
