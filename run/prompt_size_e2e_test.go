package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestPromptOverTheContextWindow: a prompt that cannot fit the model's window is refused
// before any model call when the window is known, and warned about when it is only assumed.
func TestPromptOverTheContextWindow(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", 12_000) // about 15,000 tokens by the usual estimate
	t.Run("known window", func(t *testing.T) {
		for _, tt := range []struct {
			args  []string
			stdin *string
		}{
			{args: []string{"--max-context-size", "8000", "-p", big}},
			{args: []string{"--max-context-size", "8000", "-p", "review this"}, stdin: &big},
		} {
			srv := scripted.New(t)
			r := kimi(t, srv, invocation{args: tt.args, stdin: tt.stdin})
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "context window") || !strings.Contains(r.stderr, "8000") {
				t.Errorf("stderr does not explain:\n%s", r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls", n)
			}
		}
	})
	t.Run("assumed window", func(t *testing.T) {
		huge := strings.Repeat("word ", 120_000) // about 150,000 tokens, over the 128k assumed
		srv := scripted.New(t, scripted.Text("ok"))
		r := kimi(t, srv, invocation{args: []string{"-p", "summarise"}, stdin: &huge})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "context window") {
			t.Errorf("no warning about the prompt's size:\n%s", r.stderr)
		}
	})
	t.Run("fits", func(t *testing.T) {
		srv := scripted.New(t, scripted.Text("ok"))
		r := kimi(t, srv, invocation{args: []string{"--max-context-size", "100000", "-p", big}})
		if r.code != 0 || strings.Contains(r.stderr, "context window") {
			t.Errorf("exit %d\n%s", r.code, r.stderr)
		}
	})
}
