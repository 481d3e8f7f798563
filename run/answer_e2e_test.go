package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestOutputLastMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script []scripted.Response
		args   []string
		code   int
		want   string // the file's content; "-" for a file left as it was
	}{
		{name: "answer", script: []scripted.Response{scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)), scripted.Text("All done.\n\n")},
			code: 0, want: "All done.\n"},
		{name: "step limit keeps the last text", script: []scripted.Response{scripted.Reply(scripted.Say("Still working."), scripted.Call("SetTodoList", `{}`)).Forever()},
			args: []string{"--max-steps", "2"}, code: 3, want: "Still working.\n"},
		{name: "refused before any text", script: scripted.Scenario(t, "unauthorized"), code: 5, want: ""},
		// issue 21 #2: a run that fails before answering leaves no stale answer behind.
		{name: "usage error empties it", args: []string{"--ralph", "-5"}, code: 2, want: ""},
		{name: "the key is scrubbed", script: []scripted.Response{scripted.Text("the key is " + testKey)}, code: 0, want: "the key is [redacted]\n"},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "answer.md")
				os.WriteFile(out, []byte("the previous run's answer\n"), 0o644)
				var srv *scripted.Server
				if tt.script != nil {
					srv = scripted.New(t, tt.script...)
				}
				args := append([]string{"--output-format", format, "-o", out, "-p", "do it"}, tt.args...)
				r := kimi(t, srv, invocation{args: args})
				if r.code != tt.code {
					t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				want := tt.want
				if want == "-" {
					want = "the previous run's answer\n"
				}
				if string(got) != want {
					t.Errorf("answer file = %q, want %q", got, want)
				}
				if format == "text" && r.stdout != want {
					t.Errorf("stdout %q and the answer file %q differ", r.stdout, got)
				}
				if format == "stream-json" {
					lastResult(t, r)
				}
				entries, _ := os.ReadDir(filepath.Dir(out))
				if len(entries) != 1 {
					t.Errorf("left behind in the answer's directory: %v", entries)
				}
			})
		}
	}
}

// TestOutputLastMessageUnwritable: an answer file that cannot be written is found before
// any model call, as --record's is (issue 21 #2).
func TestOutputLastMessageUnwritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, out := range map[string]string{
		"missing directory": filepath.Join(dir, "missing-dir", "answer.md"),
		"a directory":       dir,
	} {
		t.Run(name, func(t *testing.T) {
			srv := scripted.New(t, scripted.Text("All done."))
			r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-o", out, "-p", "do it"}})
			if r.code != 2 {
				t.Fatalf("exit %d, want 2 when the answer cannot be written\n%s", r.code, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls before the answer file was found unwritable", n)
			}
			res := lastResult(t, r)
			if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "usage" || !strings.Contains(e["message"].(string), "--output-last-message") {
				t.Errorf("result = %v", res)
			}
			if !strings.Contains(r.stderr, "--output-last-message") {
				t.Errorf("stderr does not name the flag:\n%s", r.stderr)
			}
		})
	}
}

// TestOutputLastMessageWithJSONSchema: under --json-schema the answer file holds what
// stdout holds, the JSON that matched, not the prose around it; nothing when it never
// matched (issue 21 #2).
func TestOutputLastMessageWithJSONSchema(t *testing.T) {
	t.Parallel()
	fenced := "Here it is:\n```json\n{\"count\": 2, \"files\": [\"a.go\", \"b.go\"]}\n```"
	tests := []struct {
		name   string
		script []scripted.Response
		code   int
		want   string
	}{
		{name: "matched", script: []scripted.Response{scripted.Text(fenced)}, code: 0, want: `{"count":2,"files":["a.go","b.go"]}` + "\n"},
		{name: "never matched", script: []scripted.Response{scripted.Text("two files").Forever()}, code: 7, want: ""},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "answer.json")
				os.WriteFile(out, []byte("the previous run's answer\n"), 0o644)
				srv := scripted.New(t, tt.script...)
				r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--json-schema", countSchema, "-o", out, "-p", "count"}})
				if r.code != tt.code {
					t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
				}
				got, _ := os.ReadFile(out)
				if string(got) != tt.want {
					t.Errorf("answer file = %q, want %q", got, tt.want)
				}
				if format == "text" && r.stdout != string(got) {
					t.Errorf("stdout %q and the answer file %q differ", r.stdout, got)
				}
			})
		}
	}
}
