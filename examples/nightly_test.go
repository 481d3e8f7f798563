package examples_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/eventschema"
)

// nightlyStep returns the run script of the step named name in github/nightly-fix.yml.
func nightlyStep(t *testing.T, name string) string {
	t.Helper()
	var w struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	decode(t, "github/nightly-fix.yml", &w)
	for _, s := range w.Jobs["fix"].Steps {
		if s.Name == name {
			return s.Run
		}
	}
	t.Fatalf("github/nightly-fix.yml has no step %q", name)
	return ""
}

// TestNightlyFixJudgesTheResult runs the nightly example's "Read the result" step as the
// runner would (bash -eo pipefail) on result lines of each kind: the pull request gets the
// files the run changed, and a refusal (exit 9), a change outside what the job may change,
// unseen changes in the checkout, changed git settings or a failed run stop it. Each result line is checked
// against the event schema first, so the step reads fields the stream really has.
func TestNightlyFixJudgesTheResult(t *testing.T) {
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the step needs %s", tool)
		}
	}
	script := nightlyStep(t, "Read the result")
	base := map[string]any{"type": "result", "ts": "2026-11-26T03:04:05.678Z", "status": "success", "terminal_reason": "completed",
		"exit_code": 0, "final_text": "Fixed.", "steps": 9, "tool_calls": 12, "tool_calls_by_tool": map[string]int{"Shell": 7, "StrReplaceFile": 5},
		"iterations": 0, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1, "cached_tokens": 0}, "duration_ms": 1, "session_id": "s",
		"files_changed": []map[string]any{
			{"path": "internal/retry/retry.go", "change": "modified", "lines_added": 3, "lines_removed": 1},
			{"path": "internal/retry/old.go", "change": "deleted", "lines_added": 0, "lines_removed": 40},
		}}
	with := func(changes map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range changes {
			out[k] = v
		}
		return out
	}
	failed := func(code int, reason string, more map[string]any) map[string]any {
		m := map[string]any{"status": "error", "exit_code": code, "terminal_reason": reason,
			"error": map[string]any{"kind": reason, "message": reason + " happened", "retryable": false}}
		for k, v := range more {
			m[k] = v
		}
		return with(m)
	}
	tests := []struct {
		name    string
		result  map[string]any
		ok      bool
		stdout  string // what the log says
		changed string // the paths handed to git add
	}{
		{name: "changes", result: base, ok: true, changed: "internal/retry/retry.go\ninternal/retry/old.go\n"},
		{name: "a cache dir unseen", result: with(map[string]any{"files_unseen": []string{"/home/runner/.cache/go-build"}}), ok: true,
			changed: "internal/retry/retry.go\ninternal/retry/old.go\n"},
		{name: "refused", result: failed(9, "denied", map[string]any{"tool_denials": 1, "denials": []map[string]any{
			{"id": "c7", "name": "Shell", "source": "rules", "rule": "Shell(git push*)", "message": "not run: the rule Shell(git push*) refuses this call"}}}),
			stdout: "::error::Shell refused by Shell(git push*) (rules)"},
		{name: "the workflow changed", result: with(map[string]any{"files_changed": []map[string]any{
			{"path": ".github/workflows/ci.yml", "change": "modified", "lines_added": 1, "lines_removed": 1}}}),
			stdout: "may not change: .github/workflows/ci.yml"},
		{name: "the checkout unseen", result: with(map[string]any{"files_unseen": []string{"."}}), stdout: "could not be seen"},
		{name: "git settings changed", result: with(map[string]any{"git_settings_changed": []string{".git/hooks/pre-push"}}),
			stdout: "git settings the next step's git would obey: .git/hooks/pre-push"},
		{name: "budget", result: failed(6, "budget", nil), stdout: "kimi-run exited 6: budget happened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, _ := json.Marshal(tt.result)
			if err := eventschema.Validate(line); err != nil {
				t.Fatalf("the test's result line is not one kimi-run writes: %v\n%s", err, line)
			}
			tmp := t.TempDir()
			events := filepath.Join(tmp, "events.ndjson")
			os.WriteFile(events, append([]byte(`{"type":"init","ts":"2026-11-26T03:04:05.000Z"}`+"\n"), append(line, '\n')...), 0o644)
			out, summary := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "EVENTS=" + events, "CODE=" + jsonNumber(tt.result["exit_code"]),
				"RUNNER_TEMP=" + tmp, "GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + summary}
			stdout, err := cmd.Output()
			if (err == nil) != tt.ok {
				t.Fatalf("step succeeded = %v, want %v: %v\n%s", err == nil, tt.ok, err, stdout)
			}
			if !strings.Contains(string(stdout), tt.stdout) {
				t.Errorf("the log lacks %q:\n%s", tt.stdout, stdout)
			}
			s, _ := os.ReadFile(summary)
			if !strings.Contains(string(s), "| ") || !strings.Contains(string(s), "Tool calls: {") {
				t.Errorf("step summary:\n%s", s)
			}
			if !tt.ok {
				return
			}
			changed, _ := os.ReadFile(filepath.Join(tmp, "changed.txt"))
			outputs, _ := os.ReadFile(out)
			if string(changed) != tt.changed || !strings.Contains(string(outputs), "count=2\n") {
				t.Errorf("changed.txt %q, outputs %q", changed, outputs)
			}
			if !strings.Contains(string(s), "| deleted | +0 -40 | `internal/retry/old.go` |") {
				t.Errorf("the summary does not show the deletion:\n%s", s)
			}
		})
	}
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
