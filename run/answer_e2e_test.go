package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestOutputLastMessage(t *testing.T) {
	tests := []struct {
		name   string
		script []scripted.Response
		args   []string
		code   int
		want   string // the file's content; "-" for a file left as it was
	}{
		{name: "answer", script: []scripted.Response{scripted.ToolCalls(scripted.Call("Think", `{"thought":"easy"}`)), scripted.Text("All done.\n\n")},
			code: 0, want: "All done.\n"},
		{name: "step limit keeps the last text", script: []scripted.Response{scripted.Reply(scripted.Say("Still working."), scripted.Call("Think", `{"thought":"more"}`)).Forever()},
			args: []string{"--max-steps", "2"}, code: 3, want: "Still working.\n"},
		{name: "refused before any text", script: scripted.Scenario(t, "unauthorized"), code: 5, want: ""},
		{name: "usage error leaves the file alone", args: []string{"--ralph", "-5"}, code: 2, want: "-"},
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
				if format == "text" && tt.code != 2 && r.stdout != want {
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

func TestOutputLastMessageUnwritable(t *testing.T) {
	srv := scripted.New(t, scripted.Text("All done."))
	out := filepath.Join(t.TempDir(), "missing-dir", "answer.md")
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "-o", out, "-p", "do it"}})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 when the answer cannot be written\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "output" || !strings.Contains(e["message"].(string), "answer file") {
		t.Errorf("result = %v", res)
	}
	if res["final_text"] != "All done." {
		t.Errorf("the answer is still in the result: %v", res["final_text"])
	}
}
