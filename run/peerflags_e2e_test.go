package run_test

import (
	"strings"
	"testing"
)

// TestPeerFlagsSayWhatToUse: a flag or a tool rule copied from another agent's headless
// mode is a usage error (exit 2) whose one line names kimi-run's own (issue 38).
func TestPeerFlagsSayWhatToUse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-turns", "5", "-p", "x"}, "did you mean --max-steps N?"},
		{[]string{"--max-turns=5", "-p", "x"}, "did you mean --max-steps N?"},
		{[]string{"--dangerously-skip-permissions", "-p", "x"}, "approves every tool call already"},
		{[]string{"--full-auto", "-p", "x"}, "--sandbox workspace-write"},
		{[]string{"--json", "-p", "x"}, "did you mean --output-format stream-json"},
		{[]string{"--allowedTools", "Bash(git diff:*)", "-p", "x"}, "did you mean --allowed-tools RULES?"},
		{[]string{"--disallowed-tools", "Bash(git push:*)", "-p", "x"}, `did you mean "Shell(git push*)"?`},
		{[]string{"--allowed-tools", "Bash(go test ./...)", "-p", "x"}, `did you mean "Shell(go test ./...)"?`},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--base-url", "http://127.0.0.1:9/v1", "-m", "m", "--no-session"}, tt.args...)
			r := kimi(t, nil, invocation{args: args})
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", tt.args, r.code, r.stderr, tt.want)
			}
		})
	}
}
