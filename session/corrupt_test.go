package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// validConversation checks what a provider checks: every tool call of an assistant message
// is answered once by the tool messages right after it, and every tool message answers one.
func validConversation(msgs []model.Message) error {
	var pending map[string]bool
	for i, m := range msgs {
		if m.Role == model.RoleTool {
			if !pending[m.ToolCallID] {
				return fmt.Errorf("message %d: tool result for %q answers no pending call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			continue
		}
		if len(pending) > 0 {
			return fmt.Errorf("message %d (%s): calls %v have no result", i, m.Role, pending)
		}
		pending = map[string]bool{}
		for _, c := range m.ToolCalls {
			if pending[c.ID] {
				return fmt.Errorf("message %d: call id %q twice", i, c.ID)
			}
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("the conversation ends with calls %v unanswered", pending)
	}
	return nil
}

// Lines of a context file for the corruption table.
const (
	lnPrompt = `{"role":"_system_prompt","content":"be brief"}`
	lnCP0    = `{"role":"_checkpoint","id":0}`
	lnCP1    = `{"role":"_checkpoint","id":1}`
	lnCP2    = `{"role":"_checkpoint","id":2}`
	lnUser   = `{"role":"user","content":"append to log.txt five times"}`
	lnCall1  = `{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"echo 1 >> log.txt\"}"}}]}`
	lnRes1   = `{"role":"tool","content":"","tool_call_id":"c1","name":"Shell"}`
	lnCall2  = `{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"c2","function":{"name":"Shell","arguments":"{}"}},{"type":"function","id":"c3","function":{"name":"ReadFile","arguments":"{}"}}]}`
	lnRes2   = `{"role":"tool","content":"done","tool_call_id":"c2","name":"Shell"}`
	lnRes3   = `{"role":"tool","content":"1\n","tool_call_id":"c3","name":"ReadFile"}`
	lnUsage  = `{"role":"_usage","token_count":99}`
	lnAnswer = `{"role":"assistant","content":"done"}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// TestSessionCorruption restores files damaged every way the issue-17 attack found (a kill
// at a bad moment, a full disk, hand edits, a huge checkpoint id): each restore yields a
// conversation a provider accepts, says what it repaired, and costs memory in proportion
// to the file, not to the numbers in it.
func TestSessionCorruption(t *testing.T) {
	tests := []struct {
		name string
		file string
		// roles is the restored conversation, one letter a message: u user, a assistant,
		// t tool result, i interrupted tool result.
		roles       string
		checkpoints int
		warn        string // a warning containing this; "" for none
	}{
		{name: "whole", file: lines(lnPrompt, lnCP0, lnUser, lnCP1, lnCall1, lnUsage, lnRes1, lnCP2, lnAnswer), roles: "uata", checkpoints: 3},
		{name: "truncated after a call", file: lines(lnPrompt, lnCP0, lnUser, lnCP1, lnCall2, lnUsage, lnRes2)[:len(lines(lnPrompt, lnCP0, lnUser, lnCP1, lnCall2, lnUsage, lnRes2))-20],
			roles: "uaii", checkpoints: 2, warn: "marked as interrupted"},
		{name: "torn line in the middle", file: lines(lnPrompt, lnCP0, lnUser, lnCall1[:40], lnCall2, lnRes2, lnRes3),
			roles: "uatt", checkpoints: 1, warn: "line 4: skipped"},
		{name: "duplicated result", file: lines(lnPrompt, lnUser, lnCall1, lnRes1, lnRes1, lnAnswer), roles: "uata", warn: "line 5: dropped a tool result"},
		{name: "duplicated call record", file: lines(lnPrompt, lnUser, lnCall1, lnCall1, lnRes1, lnAnswer), roles: "uaiata", warn: "marked as interrupted"},
		{name: "missing result before the next prompt", file: lines(lnPrompt, lnUser, lnCall2, lnRes3, lnUser), roles: "uaitu", warn: "line 5: tool call(s) c2"}, // results in call order: c2's first
		{name: "missing results before a checkpoint", file: lines(lnPrompt, lnCP0, lnUser, lnCall2, lnCP1, lnRes2, lnRes3),
			roles: "uaii", checkpoints: 2, warn: "line 5: tool call(s) c2, c3"},
		{name: "orphaned result", file: lines(lnPrompt, lnRes1, lnUser, lnAnswer), roles: "ua", warn: "line 2: dropped a tool result"},
		{name: "repeated call id in one message", file: lines(lnUser, strings.Replace(lnCall2, `"c3"`, `"c2"`, 1), lnRes2), roles: "uat", warn: "repeated tool call id"},
		{name: "huge checkpoint id", file: lines(lnPrompt, lnCP0, lnUser, `{"role":"_checkpoint","id":400000000}`, lnCall1, lnRes1),
			roles: "uat", checkpoints: 2, warn: "checkpoint id 400000000 is out of range"},
		{name: "largest checkpoint id", file: lines(lnCP0, `{"role":"_checkpoint","id":9223372036854775807}`, lnUser),
			roles: "u", checkpoints: 2, warn: "out of range"},
		{name: "small gap is filled", file: lines(lnPrompt, lnCP0, lnUser, lnCP2, lnAnswer), roles: "ua", checkpoints: 3, warn: "the missing ids are placed here"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "context.jsonl")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s, got, err := Open(context.Background(), path)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			// The reader's buffer and the records: far below 1 MiB for these files.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("restore allocated %d bytes for a %d-byte file", alloc, len(tc.file))
			}
			if err := validConversation(got.Messages); err != nil {
				t.Error(err)
			}
			if r := roleLetters(got.Messages); r != tc.roles {
				t.Errorf("conversation %q, want %q", r, tc.roles)
			}
			if len(got.Checkpoints) != tc.checkpoints {
				t.Errorf("%d checkpoints %v, want %d", len(got.Checkpoints), got.Checkpoints, tc.checkpoints)
			}
			joined := strings.Join(got.Warnings, "\n")
			if (tc.warn == "") != (joined == "") || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want one containing %q", got.Warnings, tc.warn)
			}
			// The next run appends to the repaired file; a second restore agrees with the first.
			next := model.Message{Role: model.RoleUser, Content: "go on"}
			if err := s.Append(next); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			again, err := Read(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if r := roleLetters(again.Messages); r != tc.roles+"u" {
				t.Errorf("after append and restore: %q, want %q", r, tc.roles+"u")
			}
			if len(again.Checkpoints) != tc.checkpoints+1 {
				t.Errorf("after append and restore: checkpoints %v, want %d", again.Checkpoints, tc.checkpoints+1)
			}
		})
	}
}

func roleLetters(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == model.RoleTool && m.Content == interruptedResult:
			b.WriteByte('i')
		default:
			b.WriteByte(m.Role[0])
		}
	}
	return b.String()
}

// TestSessionRevertAfterRepair: reverting a repaired session writes a file that restores to
// the same conversation, repairs included, with no warnings left.
func TestSessionRevertAfterRepair(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	file := lines(lnPrompt, lnCP0, lnUser, lnCall2, lnRes3, lnRes3, `{"role":"_checkpoint","id":400000000}`, lnAnswer, lnCP2)
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	s, got := openSession(t, path)
	r, err := s.Revert(2)
	if err != nil {
		t.Fatal(err)
	}
	// c2's made-up result comes first: results are restored in call order.
	if roleLetters(got.Messages) != "uaita" || roleLetters(r.Messages) != "uaita" {
		t.Fatalf("restored %q, revert kept %q, want uaita", roleLetters(got.Messages), roleLetters(r.Messages))
	}
	s.Close()
	again := restoreFile(t, path)
	if roleLetters(again.Messages) != "uaita" || len(again.Checkpoints) != 2 || len(again.Warnings) != 0 {
		t.Errorf("rewritten file restores to %q, checkpoints %v, warnings %q", roleLetters(again.Messages), again.Checkpoints, again.Warnings)
	}
}

// TestSessionRestoreHonoursContext: a restore of a big file stops when its context ends
// (a signal, --timeout), with the context's cause.
func TestSessionRestoreHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(lnUser+"\n", 10000)), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, _, err := Open(ctx, path); !errors.Is(err, stop) {
		t.Errorf("Open with an ended context: %v, want the cause", err)
	}
	if _, err := Read(ctx, path); !errors.Is(err, stop) {
		t.Errorf("Read with an ended context: %v, want the cause", err)
	}
}

// BenchmarkRestoreHugeCheckpointID pins the memory of a restore whose checkpoint id claims
// 400 million missing ids: it must cost what the file costs (issue 17 #8 saw 14–24 GB).
func BenchmarkRestoreHugeCheckpointID(b *testing.B) {
	path := filepath.Join(b.TempDir(), "context.jsonl")
	if err := os.WriteFile(path, []byte(lines(lnPrompt, lnCP0, lnUser, `{"role":"_checkpoint","id":400000000}`, lnAnswer)), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
}
