package run_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestEmptyPromptIsNeverReplacedByStdin: `git diff | kimi-run -p "$PROMPT"` with PROMPT unset
// must not hand the diff to an auto-approved agent as its instruction.
func TestEmptyPromptIsNeverReplacedByStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	blank := filepath.Join(dir, "blank.txt")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(blank, []byte("  \n\t\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{name: "empty -p", args: []string{"-p", ""}},
		{name: "blank -p", args: []string{"-p", "  "}},
		{name: "empty --prompt=", args: []string{"--prompt="}},
		{name: "empty prompt file", args: []string{"--prompt-file", empty}},
		{name: "blank prompt file", args: []string{"--prompt-file", blank}},
		{name: "empty prompt word", args: []string{""}},
	} {
		for _, format := range []string{"text", "stream-json"} {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				t.Parallel()
				srv := scripted.New(t)
				args := append([]string{"--output-format", format}, tt.args...)
				r := kimi(t, srv, invocation{args: args, stdin: ptr("diff --git a/x b/x\n-rm -rf /\n")})
				if r.code != 2 {
					t.Fatalf("exit = %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				if !strings.Contains(r.stderr, "empty") {
					t.Errorf("stderr does not say the prompt is empty:\n%s", r.stderr)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("%d model calls; the piped text must never become the instruction", n)
				}
				if format == "stream-json" {
					res := lastResult(t, r)
					if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "usage" {
						t.Errorf("result = %v", res)
					}
				}
			})
		}
	}
}

// TestFlowRunsWithoutAPrompt: a flow's nodes are its prompts; a prompt given with it is the
// user's request and reaches the model with every node.
func TestFlowRunsWithoutAPrompt(t *testing.T) {
	t.Parallel()
	flow := filepath.Join(t.TempDir(), "ship.mmd")
	os.WriteFile(flow, []byte("flowchart TD\n  b([BEGIN]) --> t[Run the tests]\n  t --> d{Did they pass?}\n  d -->|yes| e([END])\n  d -->|no| t\n"), 0o644)
	script := func() []scripted.Response {
		return []scripted.Response{scripted.Text("Tests pass."), scripted.Text("They do. <choice>yes</choice>")}
	}
	t.Run("no prompt", func(t *testing.T) {
		srv := scripted.New(t, script()...)
		r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--flow", flow}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if got := userPrompts(srv, 1); len(got) != 2 || got[0] != "Run the tests" || !strings.HasPrefix(got[1], "Did they pass?") {
			t.Errorf("user messages = %q", got)
		}
	})
	for _, tt := range []struct {
		name  string
		args  []string
		stdin *string
		want  string
	}{
		{name: "with -p", args: []string{"--flow", flow, "-p", "ship it"}, want: "ship it"},
		{name: "with stdin", args: []string{"--flow", flow}, stdin: ptr("ship it from stdin\n"), want: "ship it from stdin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted.New(t, script()...)
			r := kimi(t, srv, invocation{args: append([]string{"--output-format", "stream-json"}, tt.args...), stdin: tt.stdin})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			for i := range reqs {
				got := userPrompts(srv, i)
				last := got[len(got)-1]
				if !strings.Contains(last, tt.want) {
					t.Errorf("request %d: the node prompt lacks the user's request %q:\n%s", i+1, tt.want, last)
				}
			}
			if got := userPrompts(srv, 1); !strings.HasPrefix(got[0], "Run the tests") || !strings.HasPrefix(got[1], "Did they pass?") {
				t.Errorf("node prompts = %q", got)
			}
		})
	}
}

// TestFlowSkillTakesARequest: `/flow:NAME request` runs the flow with the request at every
// node, as --flow FILE -p request does.
func TestFlowSkillTakesARequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteSkill(t, dir, "ship", "---\nname: ship\ndescription: ship it\ntype: flow\n---\n```mermaid\nflowchart TD\n  b([BEGIN]) --> t[Run the tests]\n  t --> n[Write the notes]\n  n --> e([END])\n```\n")
	srv := scripted.New(t, scripted.Text("Tests pass."), scripted.Text("Notes written."))
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "/flow:ship for release v2"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stdout, r.stderr)
	}
	got := userPrompts(srv, 1)
	if len(got) != 2 || !strings.HasPrefix(got[0], "Run the tests") || !strings.HasPrefix(got[1], "Write the notes") {
		t.Fatalf("user messages = %q", got)
	}
	for _, p := range got {
		if !strings.Contains(p, "for release v2") {
			t.Errorf("node prompt lacks the request: %q", p)
		}
	}
}

// TestDashPromptFromDevNull: `-p - </dev/null` is an empty prompt, not "stdin is a
// terminal", which would send a user looking for the wrong problem.
func TestDashPromptFromDevNull(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t)
	r := kimi(t, srv, invocation{args: []string{"-p", "-"}}) // nil stdin is /dev/null
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "terminal") || !strings.Contains(r.stderr, "empty") {
		t.Errorf("stderr = %q, want an empty prompt, not a terminal", r.stderr)
	}
}

// TestSilentPipeWithoutPromptIsAnnounced: with no prompt, a run waits for stdin as long as
// it takes, and says so after a few seconds, as it does when a prompt is given.
func TestSilentPipeWithoutPromptIsAnnounced(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	cmd := exec.Command(binary, "--no-session", "--stdin-notice", "50ms", "-w", t.TempDir())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL()}
	cmd.Env = append(cmd.Env, coverEnv()...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	notice := waitLine(t, lines, "waiting for")
	if !strings.Contains(notice, "stdin") || !strings.Contains(notice, "-p") {
		t.Errorf("notice = %q, want it to name stdin and the way out", notice)
	}
	io.WriteString(stdin, "the late prompt\n")
	stdin.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run failed: %v", err)
	}
	if stdout.String() != "ok\n" {
		t.Errorf("stdout = %q", stdout.String())
	}
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1]["content"]; got != "the late prompt" {
		t.Errorf("prompt = %q", got)
	}
}
