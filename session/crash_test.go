package session

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

func TestSessionTornLastRecord(t *testing.T) {
	dir := t.TempDir()
	data, want := sampleFile(t, filepath.Join(dir, "full.jsonl"))
	body := strings.TrimSuffix(string(data), "\n")
	start := strings.LastIndex(body, "\n") + 1
	prefix, last := data[:start], data[start:len(data)-1]
	// The last record is a usage record; without it the token count is the one before.
	want.TokenCount = 1234

	for cut := 1; cut < len(last); cut++ {
		path := filepath.Join(dir, fmt.Sprintf("torn-%d.jsonl", cut))
		torn := append(append([]byte{}, prefix...), last[:cut]...)
		if err := os.WriteFile(path, torn, 0o600); err != nil {
			t.Fatal(err)
		}
		s, got := openSession(t, path)
		assertRestored(t, got, want)
		if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "torn") {
			t.Fatalf("cut %d: Warnings = %q, want one about the torn record", cut, got.Warnings)
		}
		if err := s.Usage(77); err != nil {
			t.Fatal(err)
		}
		s.Close()
		after, _ := os.ReadFile(path)
		if wantFile := string(prefix) + `{"role":"_usage","token_count":77}` + "\n"; string(after) != wantFile {
			t.Fatalf("cut %d: file after reopen and append ends %q", cut, after[start:])
		}
	}
}

func TestSessionLastRecordWithoutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	data, want := sampleFile(t, path)
	if err := os.WriteFile(path, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	s, got := openSession(t, path)
	assertRestored(t, got, want)
	if len(got.Warnings) != 0 {
		t.Errorf("Warnings = %q; a whole record without its newline is kept silently", got.Warnings)
	}
	extra := model.Message{Role: model.RoleUser, Content: "next"}
	if err := s.Append(extra); err != nil {
		t.Fatal(err)
	}
	s.Close()
	want.Messages = append(want.Messages, extra)
	got = restoreFile(t, path)
	assertRestored(t, got, want)
	if len(got.Warnings) != 0 {
		t.Errorf("Warnings after append = %q, want none", got.Warnings)
	}
}

func TestSessionSkipsBadLinesInTheMiddle(t *testing.T) {
	cases := map[string]string{
		"not json":              "this is not json",
		"binary":                "\x00\xff\xfe{{",
		"array":                 "[1,2,3]",
		"no role":               `{"content":"hello"}`,
		"unknown role":          `{"role":"wizard","content":"x"}`,
		"numeric content":       `{"role":"user","content":5}`,
		"checkpoint without id": `{"role":"_checkpoint"}`,
		"usage without count":   `{"role":"_usage"}`,
		"prompt not a string":   `{"role":"_system_prompt","content":["x"]}`,
		"torn record":           `{"role":"user","content":"cut sh`,
	}
	dir := t.TempDir()
	data, want := sampleFile(t, filepath.Join(dir, "full.jsonl"))
	lines := strings.SplitAfter(string(data), "\n")
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
			// Insert after the first user message, which is line 3.
			file := strings.Join(lines[:3], "") + bad + "\n" + strings.Join(lines[3:], "")
			if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			got := restoreFile(t, path)
			assertRestored(t, got, want)
			if len(got.Warnings) != 1 || !strings.HasPrefix(got.Warnings[0], "line 4: skipped") {
				t.Errorf("Warnings = %q, want one for line 4", got.Warnings)
			}
			if after, _ := os.ReadFile(path); string(after) != file {
				t.Error("restore changed a file whose last line is whole")
			}
		})
	}
}

// TestSessionSurvivesKillAtAnyByte simulates SIGKILL by cutting a synced file at every
// offset: each cut restores the records that were whole before it, and nothing else.
func TestSessionSurvivesKillAtAnyByte(t *testing.T) {
	dir := t.TempDir()
	data, want := sampleFile(t, filepath.Join(dir, "full.jsonl"))
	for cut := 0; cut <= len(data); cut++ {
		path := filepath.Join(dir, "cut.jsonl")
		if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		got := restoreFile(t, path)
		// Whole lines, plus a last line that lost only its newline.
		whole := string(data[:cut])
		if cut < len(data) && data[cut] != '\n' {
			whole = whole[:strings.LastIndex(whole, "\n")+1]
		}
		wantMsgs := strings.Count(whole, `{"role":"user"`) + strings.Count(whole, `{"role":"assistant"`) + strings.Count(whole, `{"role":"tool"`)
		if len(got.Messages) < wantMsgs || (wantMsgs > 0 && !reflect.DeepEqual(got.Messages[:wantMsgs], want.Messages[:wantMsgs])) {
			t.Fatalf("cut %d: restored %d messages, want the first %d", cut, len(got.Messages), wantMsgs)
		}
		// A cut between a tool call and its result leaves the call answered as interrupted.
		for _, m := range got.Messages[wantMsgs:] {
			if m.Role != model.RoleTool || m.Content != interruptedResult {
				t.Fatalf("cut %d: extra message %+v, want only interrupted results", cut, m)
			}
		}
		if err := validConversation(got.Messages); err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if n := strings.Count(whole, `"_checkpoint"`); fmt.Sprint(got.Checkpoints) != fmt.Sprint(want.Checkpoints[:n]) {
			t.Fatalf("cut %d: Checkpoints = %v, want %v", cut, got.Checkpoints, want.Checkpoints[:n])
		}
		if len(got.Warnings) > 2 {
			t.Fatalf("cut %d: Warnings = %q, want at most one", cut, got.Warnings)
		}
	}
}

func TestSessionConcurrentWritesStayWholeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	s := createSession(t, path)
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				content := strings.Repeat(fmt.Sprintf("w%d-%d ", w, i), 1+(w*i)%2000)
				if err := s.Append(model.Message{Role: model.RoleUser, Content: content}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					if _, err := s.Checkpoint(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	s.Close()
	got := restoreFile(t, path)
	if len(got.Warnings) != 0 {
		t.Fatalf("Warnings = %q, want none", got.Warnings)
	}
	if len(got.Messages) != writers*each || len(got.Checkpoints) != writers*each/10 {
		t.Fatalf("restored %d messages and %d checkpoints, want %d and %d",
			len(got.Messages), len(got.Checkpoints), writers*each, writers*each/10)
	}
	seen := map[string]bool{}
	for _, m := range got.Messages {
		seen[m.Content] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct messages, want %d", len(seen), writers*each)
	}
}
