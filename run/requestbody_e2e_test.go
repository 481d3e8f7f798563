package run_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/tools"
)

// TestRequestBodiesUnchanged pins, byte for byte but for the indentation, the request bodies a run sends for a few
// plain conversations: the first request with the default agent's tools and system prompt,
// the request after a tool step, another built-in agent's, a subagent's. What a run sets up
// before its first request (tool schemas, agent files, the parser) can be produced in other
// ways (issue 31: at build time), but what reaches the provider must not change; a change
// that means to change it rewrites the files with -update, for review in the diff. The
// machine's own facts (the work dir, the time, the shell's path) are replaced by
// placeholders.
func TestRequestBodiesUnchanged(t *testing.T) {
	if name, _ := tools.ShellInfo(); name != "bash" {
		t.Skipf("the bodies were written on a machine whose Shell runs bash, not %s", name)
	}
	subagent := `{"description":"look around","prompt":"List the files.","subagent_type":"explore"}`
	cases := []struct {
		name   string
		args   []string
		script []scripted.Response
	}{
		{"default-tool-step", []string{"-p", "hi"}, []scripted.Response{
			scripted.ToolCalls(scripted.Call("SetTodoList", `{"todos":[{"title":"a plan","status":"pending"}]}`)),
			scripted.Text("done"),
		}},
		{"okabe", []string{"--agent", "okabe", "-p", "hi"}, []scripted.Response{scripted.Text("ok")}},
		{"subagent", []string{"-p", "hi"}, []scripted.Response{
			scripted.ToolCalls(scripted.Call("Agent", subagent)),
			scripted.Text("nothing here"),
			scripted.Text("done"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := scripted.New(t, c.script...)
			if r := kimi(t, srv, invocation{dir: dir, args: c.args}); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != len(c.script) {
				t.Fatalf("%d requests, want %d", len(reqs), len(c.script))
			}
			// One JSON array of the bodies, indented so that a change reads as a diff.
			bodies := make([]string, len(reqs))
			for i, req := range reqs {
				bodies[i] = normalBody(string(req.Raw), dir)
			}
			var got bytes.Buffer
			if err := json.Indent(&got, []byte("["+strings.Join(bodies, ",")+"]"), "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteString("\n")
			golden := filepath.Join("testdata", "requests", c.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("the request bodies differ from %s (run with -update if that is meant, and review the diff):\n%s", golden, firstDifference(got.String(), string(want)))
			}
		})
	}
}

// rfc3339 is the run's start time as the system prompt gives it.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)`)

// normalBody replaces in a request body what depends on the machine and the moment.
func normalBody(body, workDir string) string {
	_, shellPath := tools.ShellInfo()
	body = strings.ReplaceAll(body, workDir, "{WORK_DIR}")
	body = strings.ReplaceAll(body, shellPath, "{SHELL_PATH}")
	return rfc3339.ReplaceAllString(body, "{NOW}")
}

// firstDifference shows where two texts part, with some context.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return "got:  …" + got[from:min(len(got), i+200)] + "\nwant: …" + want[from:min(len(want), i+200)]
}
