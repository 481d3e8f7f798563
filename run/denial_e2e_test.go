package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestFailOnDenialNamesEveryRefusal (issue 32 #3): one run meets a refusal of each kind —
// a tool rule, kimi-run's guard of secret files, a PreToolUse hook — and answers. With
// --fail-on-denial it exits 9 and result.denials names each refusal and its rule; without,
// it exits 0 and lists them all the same.
func TestFailOnDenialNamesEveryRefusal(t *testing.T) {
	t.Parallel()
	cfg := hookConfig(t, `
[[hooks]]
event = "PreToolUse"
matcher = "WriteFile"
command = "echo 'no writes on Fridays' >&2; exit 2"
`)
	for _, fail := range []bool{true, false} {
		name := "without"
		if fail {
			name = "with"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=s3cr3t\n"), 0o600)
			srv := scripted.New(t,
				scripted.ToolCalls(
					scripted.CallID("rm", "Shell", `{"command":"rm -rf build"}`),
					scripted.CallID("env", "ReadFile", `{"path":".env"}`),
					scripted.CallID("write", "WriteFile", `{"path":"notes.txt","content":"x\n"}`),
					scripted.CallID("ok", "Shell", `{"command":"echo fine"}`),
				),
				scripted.Text("Some of it was refused."),
			)
			args := append(cfg, "--output-format", "stream-json", "--disallowed-tools", "Shell(rm *)", "-p", "tidy up")
			if fail {
				args = append(args, "--fail-on-denial")
			}
			r := kimi(t, srv, invocation{dir: dir, args: args})
			want := 0
			if fail {
				want = 9
			}
			if r.code != want {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, want, r.stdout, r.stderr)
			}
			evs := events(t, r.stdout)
			res := lastResult(t, r)
			type denial struct{ source, rule string }
			got := map[string]denial{}
			list, _ := res["denials"].([]any)
			for _, d := range list {
				m := d.(map[string]any)
				got[m["id"].(string)] = denial{m["source"].(string), m["rule"].(string)}
				if m["message"] == "" {
					t.Errorf("denial without a message: %v", m)
				}
			}
			wantDenials := map[string]denial{
				"rm":    {"rules", "Shell(rm *)"},
				"env":   {"guard", "secret file"},
				"write": {"hook", "PreToolUse hook: echo 'no writes on Fridays' >&2; exit 2"},
			}
			if len(got) != len(wantDenials) || res["tool_denials"] != 3.0 {
				t.Errorf("denials = %v (tool_denials %v), want %v", got, res["tool_denials"], wantDenials)
			}
			for id, w := range wantDenials {
				if got[id] != w {
					t.Errorf("denial of %s = %+v, want %+v", id, got[id], w)
				}
			}
			if n := len(testkit.OfType(evs, "tool_denied")); n != 3 {
				t.Errorf("%d tool_denied events, want 3", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err == nil {
				t.Errorf("the call the hook blocked ran")
			}
			if !fail {
				if res["status"] != "success" || res["error"] != nil {
					t.Errorf("result = %v", res)
				}
				return
			}
			e, _ := res["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if res["terminal_reason"] != "denied" || e["kind"] != "denied" || e["retryable"] != false ||
				!strings.HasPrefix(msg, "3 tool calls were refused (--fail-on-denial): ") {
				t.Errorf("result = %v", res)
			}
			// The calls of one reply run at once: the refusals come in any order.
			for _, part := range []string{"Shell by Shell(rm *) (rules)", "ReadFile by secret file (guard)", "WriteFile by PreToolUse hook: echo 'no writes on Fridays' >&2; exit 2 (hook)"} {
				if !strings.Contains(msg, part) {
					t.Errorf("the error lacks %q: %s", part, msg)
				}
			}
			// The answer is still the answer.
			if res["final_text"] != "Some of it was refused." {
				t.Errorf("final_text = %v", res["final_text"])
			}
		})
	}
}

// TestFailOnDenialKeepsOtherFailures: a refusal does not hide a worse outcome, and a run
// without a refusal succeeds.
func TestFailOnDenialKeepsOtherFailures(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"rm -rf /"}`)).Forever())
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--disallowed-tools", "Shell(rm *)",
		"--fail-on-denial", "--max-steps", "2", "-p", "x"}})
	if r.code != 3 {
		t.Fatalf("exit %d, want the step limit's 3\n%s", r.code, r.stderr)
	}
	if res := lastResult(t, r); res["terminal_reason"] != "max_steps" || res["tool_denials"] != 2.0 {
		t.Errorf("result = %v", res)
	}
	srv = scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`)), scripted.Text("Done."))
	r = kimi(t, srv, invocation{args: []string{"--disallowed-tools", "Shell(rm *)", "--fail-on-denial", "-p", "x"}})
	if r.code != 0 || r.stdout != "Done.\n" {
		t.Errorf("a run with nothing refused: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestFailOnDenialInTextMode: stdout keeps the answer; stderr says why the run failed, and
// the variable KIMI_RUN_FAIL_ON_DENIAL asks for it as the flag does. A tool the rules do not
// offer is no refusal: the model called a tool that is not there.
func TestFailOnDenialInTextMode(t *testing.T) {
	t.Parallel()
	env := map[string]string{"KIMI_RUN_FAIL_ON_DENIAL": "1"}
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("FetchURL", `{"url":"https://example.com"}`)), scripted.Text("Could not fetch."))
	srv.AllowUnknownTools()
	r := kimi(t, srv, invocation{args: []string{"--allowed-tools", "Shell", "-p", "x"}, env: env})
	if r.code != 0 {
		t.Fatalf("a call of a tool not offered: exit %d\n%s", r.code, r.stderr)
	}
	srv = scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"git push --force"}`)), scripted.Text("Not pushed."))
	r = kimi(t, srv, invocation{args: []string{"--allowed-tools", "Shell(git status*)", "-p", "x"}, env: env})
	if r.code != 9 {
		t.Fatalf("exit %d, want 9\n%s", r.code, r.stderr)
	}
	if r.stdout != "Not pushed.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	for _, want := range []string{"a tool call was refused (--fail-on-denial)", "Shell by no allow rule (rules)", "denied=1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
