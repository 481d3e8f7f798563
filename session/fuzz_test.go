package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// fuzzValidFile is a well-formed context file that every fuzz input is appended to.
const fuzzValidFile = `{"role":"_system_prompt","content":"be brief"}
{"role":"_checkpoint","id":0}
{"role":"user","content":"hello"}
{"role":"_checkpoint","id":1}
{"role":"assistant","content":[{"type":"think","think":"hm"},{"type":"text","text":"hi"}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"Shell","arguments":"{}"}}]}
{"role":"tool","content":"ok","tool_call_id":"c1","name":"Shell"}
{"role":"_usage","token_count":42}
`

// FuzzRestore checks that no input makes restore panic or fail or yield an invalid
// conversation (issue 17 #9), that garbage after a valid
// file never costs a record of that file, and that a reopened file takes the next record
// on a line of its own.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte(`{"role":"user","content":"cut`))
	f.Add([]byte("\n\n\r\n  "))
	f.Add([]byte(`{"role":"_checkpoint","id":0}` + "\n" + `{"role":"_checkpoint","id":7}`))
	f.Add([]byte(`{"role":"user","content":[{"type":"image_url"},null,{"type":"text","text":"x"}]}`))
	f.Add([]byte{0xff, 0x00, '{', '\n', '[', ']'})

	want, err := scanRecords(context.Background(), bytes.NewReader([]byte(fuzzValidFile)), -1, nil)
	if err != nil || len(want.restored.Warnings) != 0 {
		f.Fatalf("the valid file does not restore cleanly: %v %q", err, want.restored.Warnings)
	}
	f.Fuzz(func(t *testing.T, suffix []byte) {
		// Arbitrary bytes alone.
		if _, err := scanRecords(context.Background(), bytes.NewReader(suffix), -1, nil); err != nil {
			t.Fatalf("scan of arbitrary bytes failed: %v", err)
		}

		path := filepath.Join(t.TempDir(), "context.jsonl")
		if err := os.WriteFile(path, append([]byte(fuzzValidFile), suffix...), 0o600); err != nil {
			t.Fatal(err)
		}
		s, got, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if err := validConversation(got.Messages); err != nil {
			t.Fatalf("restore gave a conversation a provider refuses: %v", err)
		}
		n := len(want.restored.Messages)
		if len(got.Messages) < n || !reflect.DeepEqual(got.Messages[:n], want.restored.Messages) {
			t.Fatalf("lost messages of the valid prefix: got %+v", got.Messages)
		}
		c := len(want.restored.Checkpoints)
		if len(got.Checkpoints) < c || !reflect.DeepEqual(got.Checkpoints[:c], want.restored.Checkpoints) {
			t.Fatalf("lost checkpoints of the valid prefix: got %v", got.Checkpoints)
		}

		extra := model.Message{Role: model.RoleUser, Content: "after reopen"}
		if err := s.Append(extra); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, again, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("second Open: %v", err)
		}
		s.Close()
		wantMsgs := append(append([]model.Message{}, got.Messages...), extra)
		if !reflect.DeepEqual(again.Messages, wantMsgs) {
			t.Fatalf("after append and reopen: got %+v, want %+v", again.Messages, wantMsgs)
		}
	})
}
