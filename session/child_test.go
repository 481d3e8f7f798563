package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// TestChildFolders: a subagent's file is named from its call id, made safe for a folder name,
// and a second subagent under the same id gets a folder of its own; a restore reads the
// latest one for an interrupted call.
func TestChildFolders(t *testing.T) {
	dir := t.TempDir()
	parent, err := Create(filepath.Join(dir, "context.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	for _, tc := range []struct{ id, want string }{
		{"call_1", "subagents/call_1/context.jsonl"},
		{"functions.Agent:0", "subagents/functions_Agent_0/context.jsonl"},
		{"functions.Agent:0", "subagents/functions_Agent_0.2/context.jsonl"},
		{"../../etc", "subagents/______etc/context.jsonl"},
		{"", "subagents/call/context.jsonl"},
	} {
		c, err := parent.Child(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := filepath.Rel(dir, c.Path()); filepath.ToSlash(got) != tc.want {
			t.Errorf("Child(%q) = %s, want %s", tc.id, got, tc.want)
		}
		if tc.id == "functions.Agent:0" {
			c.Append(model.Message{Role: model.RoleAssistant, ToolCalls: []model.CallSpec{{ID: "s", Name: "Shell", Arguments: `{"command":"` + tc.want + `"}`}}})
		}
		c.Close()
	}
	known := childKnown(t.Context(), filepath.Join(dir, "context.jsonl"))(model.CallSpec{ID: "functions.Agent:0", Name: "Agent"})
	if !strings.Contains(known, "functions_Agent_0.2/context.jsonl") || !strings.Contains(known, "interrupted, no result saved") {
		t.Errorf("the restore's note is not from the latest subagent folder:\n%s", known)
	}
	if known := childKnown(t.Context(), filepath.Join(dir, "context.jsonl"))(model.CallSpec{ID: "no-such-call"}); known != "" {
		t.Errorf("a call without a subagent folder got a note: %q", known)
	}
}
