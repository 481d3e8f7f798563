package run_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		stdin *string
		want  string
	}{
		{name: "no prompt", want: "empty prompt"},
		{name: "blank prompt", args: []string{"-p", "   "}, want: "empty prompt"},
		{name: "empty stdin", stdin: ptr("\n\n"), want: "empty prompt"},
		{name: "unknown flag", args: []string{"--bogus"}, want: "bogus"},
		{name: "bad output format", args: []string{"--output-format", "xml", "-p", "x"}, want: "output-format"},
		{name: "two prompts", args: []string{"-p", "a", "b"}, want: "one way"},
		{name: "missing prompt file", args: []string{"--prompt-file", "/nonexistent/prompt.md"}, want: "prompt file"},
		{name: "bad max steps", args: []string{"-p", "x", "--max-steps", "-1"}, want: "--max-steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t)
			r := kimi(t, srv, invocation{args: tt.args, stdin: tt.stdin})
			if r.code != 2 {
				t.Fatalf("exit = %d, want 2\nstderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q", r.stdout)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("a usage error made %d model calls", n)
			}
		})
	}
}

func TestPromptSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	promptFile := filepath.Join(dir, "task.md")
	os.WriteFile(promptFile, []byte("from a file\n"), 0o644)
	tests := []struct {
		name  string
		args  []string
		stdin *string
		want  string
	}{
		{name: "flag", args: []string{"-p", "from the flag"}, want: "from the flag"},
		{name: "words", args: []string{"from", "the", "words"}, want: "from the words"},
		{name: "file", args: []string{"--prompt-file", promptFile}, want: "from a file"},
		{name: "stdin", stdin: ptr("from stdin\n"), want: "from stdin"},
		{name: "dash", args: []string{"-p", "-"}, stdin: ptr("dash stdin"), want: "dash stdin"},
		{name: "stdin as context", args: []string{"-p", "review this"}, stdin: ptr("diff --git a/x b/x\n"),
			want: "review this\n\n<stdin>\ndiff --git a/x b/x\n</stdin>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: tt.args, stdin: tt.stdin})
			if r.code != 0 {
				t.Fatalf("exit = %d\n%s", r.code, r.stderr)
			}
			msgs := srv.Requests()[0].Messages()
			if got := msgs[len(msgs)-1]["content"]; got != tt.want {
				t.Errorf("prompt sent = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUsageErrorsInStreamJSON(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--output-format", "stream-json", "--bogus", "-p", "x"},
		{"--output-format=stream-json", "--max-steps", "many", "-p", "x"},
		{"--output-format", "stream-json"},
	} {
		srv := scripted.New(t)
		r := kimi(t, srv, invocation{args: args})
		if r.code != 2 {
			t.Fatalf("%v: exit %d", args, r.code)
		}
		res := lastResult(t, r)
		if e, _ := res["error"].(map[string]any); e == nil || e["kind"] != "usage" {
			t.Errorf("%v: result = %v", args, res)
		}
	}
}

// TestSilentStdinPipe hands the binary a stdin pipe that stays open and never sends a byte,
// as some CI runners do. With a prompt given, the run must not wait for it forever.
func TestSilentStdinPipe(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	cmd := exec.Command(binary, "--no-session", "--output-format", "stream-json", "--stdin-timeout", "300ms", "-w", t.TempDir(), "-p", "the prompt")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL()}
	cmd.Env = append(cmd.Env, coverEnv()...)
	stdin, err := cmd.StdinPipe() // open until Wait returns; nothing is written
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run failed: %v", err)
	}
	r := result{stdout: string(out)}
	if evs := events(t, r.stdout); evs[0]["type"] != "init" {
		t.Errorf("first event = %v, want init", evs[0]["type"])
	}
	if !testkit.Any(events(t, r.stdout), "warning", func(e map[string]any) bool {
		return strings.Contains(e["message"].(string), "stdin sent nothing")
	}) {
		t.Errorf("no warning about the ignored stdin:\n%s", r.stdout)
	}
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1]["content"]; got != "the prompt" {
		t.Errorf("prompt = %q", got)
	}
}

func TestNoStdin(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{stdin: ptr("piped context"), args: []string{"--no-stdin", "-p", "only this"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1]["content"]; got != "only this" {
		t.Errorf("prompt = %q, want stdin ignored", got)
	}
}

func TestQuietAndLogLevels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		fail       bool
		wantStderr string // "" means stderr must be empty
	}{
		{args: []string{"--quiet"}},
		{args: []string{"--log-level", "warn"}},
		{args: []string{"--log-level", "error"}},
		{args: []string{"--quiet"}, fail: true, wantStderr: "boom"},
		{args: []string{"--log-level", "debug"}, wantStderr: "tokens"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+fmt.Sprint(tt.fail), func(t *testing.T) {
			t.Parallel()
			resp := scripted.Text("fine")
			if tt.fail {
				resp = scripted.Status(400, scripted.ErrorBody("invalid_request_error", "boom"))
			}
			srv := scripted.New(t, resp)
			r := kimi(t, srv, invocation{args: append([]string{"-p", "x"}, tt.args...)})
			if tt.fail != (r.code != 0) {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !tt.fail && r.stdout != "fine\n" {
				t.Errorf("stdout = %q", r.stdout)
			}
			switch {
			case tt.wantStderr == "" && r.stderr != "":
				t.Errorf("stderr should be empty:\n%s", r.stderr)
			case tt.wantStderr != "" && !strings.Contains(r.stderr, tt.wantStderr):
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, r.stderr)
			case tt.fail && strings.Count(strings.TrimSpace(r.stderr), "\n") != 0:
				t.Errorf("a quiet failure should say why in one line:\n%s", r.stderr)
			}
		})
	}
}
