package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

const countSchema = `{"type":"object","properties":{"count":{"type":"integer"},"files":{"type":"array","items":{"type":"string"}}},"required":["count","files"],"additionalProperties":false}`

// lastUser returns the content of the last user message of request i.
func lastUser(srv *scripted.Server, i int) string {
	msgs := srv.Requests()[i].Messages()
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j]["role"] == "user" {
			c, _ := msgs[j]["content"].(string)
			return c
		}
	}
	return ""
}

func TestJSONSchemaMetFirstTime(t *testing.T) {
	t.Parallel()
	schemaFile := filepath.Join(t.TempDir(), "count.json")
	if err := os.WriteFile(schemaFile, []byte(countSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := "```json\n{\"count\": 2,\n \"files\": [\"a.go\", \"b.go\"]}\n```"
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t, scripted.Text(answer))
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--json-schema", schemaFile, "-p", "count the Go files"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			// The model was told the schema up front, with the task.
			if p := lastUser(srv, 0); !strings.HasPrefix(p, "count the Go files") || !strings.Contains(p, countSchema) {
				t.Errorf("prompt does not carry the schema:\n%s", p)
			}
			if format == "text" {
				if r.stdout != `{"count":2,"files":["a.go","b.go"]}`+"\n" {
					t.Errorf("stdout = %q, want the compact JSON on one line", r.stdout)
				}
				return
			}
			res := lastResult(t, r)
			got, _ := json.Marshal(res["structured_output"])
			if string(got) != `{"count":2,"files":["a.go","b.go"]}` || res["final_text"] != answer {
				t.Errorf("result = %v", res)
			}
		})
	}
}

func TestJSONSchemaMetAfterOneReask(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Text(`I found {"count": "two"} files.`),
		scripted.Text(`{"count": 2, "files": ["a.go", "b.go"]}`),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--output-schema", countSchema, "-p", "count"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("server got %d requests, want 2", n)
	}
	reask := lastUser(srv, 1)
	if !strings.Contains(reask, "not valid against the required JSON Schema") || !strings.Contains(reask, "not JSON") {
		t.Errorf("re-ask = %q, want the validator's findings", reask)
	}
	res := lastResult(t, r)
	if res["structured_output"] == nil || res["status"] != "success" || res["steps"] != 2.0 {
		t.Errorf("result = %v", res)
	}
	warned := false
	for _, e := range events(t, r.stdout) {
		if e["type"] == "warning" && strings.Contains(e["message"].(string), "asking again (1/2)") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning event for the re-ask")
	}
}

func TestJSONSchemaNeverMet(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			srv := scripted.New(t,
				scripted.Text(`{"count": 2}`),
				scripted.Text(`{"count": 2, "files": "a.go"}`),
				scripted.Text(`{"count": "2", "files": []}`),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--json-schema", countSchema, "-p", "count"}})
			if r.code != 7 {
				t.Fatalf("exit = %d, want 7\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("server got %d requests, want 3 (the answer and two re-asks)", n)
			}
			// The second re-ask carries the findings about the second answer.
			if p := lastUser(srv, 2); !strings.Contains(p, "/files") {
				t.Errorf("second re-ask = %q", p)
			}
			if !strings.Contains(r.stderr, "does not match --json-schema") {
				t.Errorf("stderr does not say why:\n%s", r.stderr)
			}
			if format == "text" {
				if r.stdout != "" {
					t.Errorf("stdout = %q, want nothing: it only ever holds JSON that matched", r.stdout)
				}
				return
			}
			res := lastResult(t, r)
			e, _ := res["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if res["terminal_reason"] != "schema" || e["kind"] != "schema" || res["structured_output"] != nil {
				t.Errorf("result = %v", res)
			}
			if !strings.Contains(msg, `/properties/count: type: 2 has type "string", want "integer"`) || !strings.Contains(msg, `Last answer: {"count": "2", "files": []}`) {
				t.Errorf("error message = %q, want the findings and the last answer", msg)
			}
			if res["final_text"] != `{"count": "2", "files": []}` {
				t.Errorf("final_text = %v", res["final_text"])
			}
		})
	}
}

func TestJSONSchemaWithRalph(t *testing.T) {
	t.Parallel()
	// The final answer of a Ralph run is the reply that chose STOP, without its choice tag.
	srv := scripted.New(t,
		scripted.Text("Counted half of them."),
		scripted.Text("{\"count\": 2, \"files\": [\"a.go\", \"b.go\"]}\n<choice>STOP</choice>"),
	)
	r := kimi(t, srv, invocation{args: []string{"--json-schema", countSchema, "--ralph", "3", "-p", "count"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != `{"count":2,"files":["a.go","b.go"]}`+"\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	// Every turn of the loop is told the schema: a turn cannot know it is the last.
	for i := range 2 {
		if p := lastUser(srv, i); !strings.Contains(p, countSchema) || !strings.Contains(p, "<choice>") && i == 1 {
			t.Errorf("prompt %d = %q", i, p)
		}
	}
}

func TestJSONSchemaUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ spec, stderr string }{
		{`{"type": 3}`, "--json-schema"},
		{`{"type":`, "--json-schema"},
		{filepath.Join(t.TempDir(), "nope.json"), "--json-schema"},
		{`{"$ref": "https://example.com/s.json"}`, "only local files are loaded"},
		// issue 21 #3: a schema that parses but names no JSON type used to burn model
		// calls and exit 7 with Go's map[...] in the message.
		{`{"type":"objec"}`, `"type" is "objec"; a type is one of array, boolean`},
		{`{"type":"object","properties":{"n":{"type":["integer","nul"]}}}`, `at /properties/n: "type" is "nul"`},
		{`{"type":"array","items":{"type":"string","minLength":-1}}`, `at /items: "minLength" is -1`},
	}
	for _, tt := range tests {
		srv := scripted.New(t, scripted.Text(`{}`))
		r := kimi(t, srv, invocation{args: []string{"--json-schema", tt.spec, "-p", "x"}})
		if r.code != 2 || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("--json-schema %q: exit %d, stderr %q; want 2 and %q", tt.spec, r.code, r.stderr, tt.stderr)
		}
		if strings.Contains(r.stderr, "map[") {
			t.Errorf("--json-schema %q: Go's map syntax in the message: %s", tt.spec, r.stderr)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("--json-schema %q: %d model calls made before the schema was refused", tt.spec, n)
		}
	}
}
