package session

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
)

// sampleStep is one write to a session, used to build files in tests.
type sampleStep struct {
	prompt     string
	msg        *model.Message
	checkpoint bool
	usage      int
}

// sampleSteps covers every record kind, reasoning, tool calls and text that JSON escapes.
func sampleSteps() []sampleStep {
	return []sampleStep{
		{prompt: "You are a careful agent.\nUse <tools> & \"quotes\"."},
		{checkpoint: true},
		{msg: &model.Message{Role: model.RoleUser, Content: "list the files"}},
		{checkpoint: true},
		{msg: &model.Message{Role: model.RoleAssistant, Reasoning: "I should run ls.", ToolCalls: []model.CallSpec{
			{ID: "call_1", Name: "Shell", Arguments: `{"command":"ls"}`},
			{ID: "call_2", Name: "ReadFile", Arguments: `{"path":"go.mod"`},
		}}},
		{msg: &model.Message{Role: model.RoleTool, ToolCallID: "call_1", Name: "Shell", Content: "go.mod\nmain.go\n"}},
		{msg: &model.Message{Role: model.RoleTool, ToolCallID: "call_2", Name: "ReadFile", Content: ""}},
		{usage: 1234},
		{checkpoint: true},
		{msg: &model.Message{Role: model.RoleAssistant, Reasoning: "Two files.", Content: "There are two files: `go.mod` & `main.go`."}},
		{usage: 1300},
	}
}

// writeSteps applies steps to s and returns the state a restore should give back.
func writeSteps(t testing.TB, s *File, steps []sampleStep) *Restored {
	t.Helper()
	want := &Restored{}
	for _, st := range steps {
		var err error
		switch {
		case st.prompt != "":
			err = s.SystemPrompt(st.prompt)
			want.SystemPrompt = st.prompt
		case st.msg != nil:
			err = s.Append(*st.msg)
			want.Messages = append(want.Messages, *st.msg)
		case st.checkpoint:
			var id int
			id, err = s.Checkpoint()
			if id != len(want.Checkpoints) {
				t.Fatalf("Checkpoint() = %d, want %d", id, len(want.Checkpoints))
			}
			want.Checkpoints = append(want.Checkpoints, len(want.Messages))
		default:
			err = s.Usage(st.usage)
			want.TokenCount = st.usage
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return want
}

func createSession(t testing.TB, path string, opts ...Option) *File {
	t.Helper()
	s, err := Create(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openSession restores path and registers the session for closing.
func openSession(t testing.TB, path string) (*File, *Restored) {
	t.Helper()
	s, r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, r
}

// restoreFile restores path and closes the session again.
func restoreFile(t testing.TB, path string) *Restored {
	t.Helper()
	s, r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return r
}

// sampleFile writes the sample conversation to a new file and returns its bytes and the
// expected restored state.
func sampleFile(t *testing.T, path string) ([]byte, *Restored) {
	t.Helper()
	s := createSession(t, path)
	want := writeSteps(t, s, sampleSteps())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, want
}

func assertRestored(t *testing.T, got, want *Restored) {
	t.Helper()
	if got.SystemPrompt != want.SystemPrompt {
		t.Errorf("SystemPrompt = %q, want %q", got.SystemPrompt, want.SystemPrompt)
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("Messages =\n%+v\nwant\n%+v", got.Messages, want.Messages)
	}
	if !reflect.DeepEqual(got.Checkpoints, want.Checkpoints) {
		t.Errorf("Checkpoints = %v, want %v", got.Checkpoints, want.Checkpoints)
	}
	if got.TokenCount != want.TokenCount {
		t.Errorf("TokenCount = %d, want %d", got.TokenCount, want.TokenCount)
	}
}

func TestSessionWritesKimiLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions", "abc", "context.jsonl")
	data, _ := sampleFile(t, path)
	want := []string{
		`{"role":"_system_prompt","content":"You are a careful agent.\nUse <tools> & \"quotes\"."}`,
		`{"role":"_checkpoint","id":0}`,
		`{"role":"user","content":"list the files"}`,
		`{"role":"_checkpoint","id":1}`,
		`{"role":"assistant","content":[{"type":"think","think":"I should run ls."}],"tool_calls":[` +
			`{"type":"function","id":"call_1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}},` +
			`{"type":"function","id":"call_2","function":{"name":"ReadFile","arguments":"{\"path\":\"go.mod\""}}]}`,
		`{"role":"tool","content":"go.mod\nmain.go\n","tool_call_id":"call_1","name":"Shell"}`,
		`{"role":"tool","content":"","tool_call_id":"call_2","name":"ReadFile"}`,
		`{"role":"_usage","token_count":1234}`,
		`{"role":"_checkpoint","id":2}`,
		`{"role":"assistant","content":[{"type":"think","think":"Two files."},{"type":"text","text":"There are two files: ` + "`go.mod` & `main.go`" + `."}]}`,
		`{"role":"_usage","token_count":1300}`,
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("file lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if runtime.GOOS != "windows" {
		for p, mode := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | fs.ModeDir} {
			if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
				t.Errorf("mode of %s = %v (%v), want %v", p, fi.Mode(), err, mode)
			}
		}
	}
}

func TestSessionRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	_, want := sampleFile(t, path)
	s, got := openSession(t, path)
	assertRestored(t, got, want)
	if len(got.Warnings) != 0 {
		t.Errorf("Warnings = %q, want none", got.Warnings)
	}
	// Appending continues the checkpoint numbering.
	if id, err := s.Checkpoint(); err != nil || id != 3 {
		t.Fatalf("Checkpoint() after reopen = %d, %v; want 3", id, err)
	}
}

func TestSessionKeepsLargeRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	s := createSession(t, path)
	big := model.Message{Role: model.RoleUser, Content: strings.Repeat("0123456789abcdef", 1<<16)}
	if err := s.Append(big); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := restoreFile(t, path)
	if len(got.Messages) != 1 || got.Messages[0].Content != big.Content || len(got.Warnings) != 0 {
		t.Fatalf("restored %d messages, warnings %q; want the 1 MiB message back", len(got.Messages), got.Warnings)
	}
}

func TestSessionRestoresKimiCLIFile(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "sessions", "kimi_context.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "context.jsonl")
	if err := os.WriteFile(path, fixture, 0o600); err != nil {
		t.Fatal(err)
	}
	got := restoreFile(t, path)
	want := &Restored{
		SystemPrompt: "You are Kimi CLI. Café rules apply.",
		Messages: []model.Message{
			{Role: model.RoleUser, Content: "list the files"},
			{Role: model.RoleAssistant, Reasoning: "I should run ls.", ToolCalls: []model.CallSpec{
				{ID: "Shell:0", Name: "Shell", Arguments: `{"command": "ls"}`},
			}},
			{Role: model.RoleTool, ToolCallID: "Shell:0", Content: "<system>Command executed successfully.</system>go.mod\nmain.go\n"},
			{Role: model.RoleAssistant, Reasoning: "Two files.", Content: "There are two files: go.mod and main.go."},
			// Kimi keeps an image as a data URL part: it comes back as the image it was.
			{Role: model.RoleUser, Content: "and this?", Images: []event.Image{{MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")}}},
		},
		Checkpoints: []int{0, 1, 3},
		TokenCount:  1300,
	}
	assertRestored(t, got, want)
	if len(got.Warnings) != 0 {
		t.Errorf("Warnings = %q, want none", got.Warnings)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, fixture) {
		t.Error("restoring changed a well-formed file")
	}
}

func TestSessionRevert(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "context.jsonl")
	before, _ := sampleFile(t, path)
	s, _ := openSession(t, path)
	lines := strings.SplitAfter(string(before), "\n")

	got, err := s.Revert(1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rotated != path+".1" {
		t.Errorf("Rotated = %q, want %q", got.Rotated, path+".1")
	}
	if rotated, _ := os.ReadFile(path + ".1"); !bytes.Equal(rotated, before) {
		t.Error("context.jsonl.1 does not hold the file as it was before the revert")
	}
	// Checkpoint 1 is line 4: the new file holds lines 1-3.
	assertFile(t, path, strings.Join(lines[:3], ""))
	assertRestored(t, got, &Restored{
		SystemPrompt: sampleSteps()[0].prompt,
		Messages:     []model.Message{{Role: model.RoleUser, Content: "list the files"}},
		Checkpoints:  []int{0},
	})

	// The session goes on in the new file; the next checkpoint reuses id 1.
	if id, err := s.Checkpoint(); err != nil || id != 1 {
		t.Fatalf("Checkpoint() after revert = %d, %v; want 1", id, err)
	}
	if err := s.Append(model.Message{Role: model.RoleUser, Content: "D-Mail"}); err != nil {
		t.Fatal(err)
	}
	afterFirst, _ := os.ReadFile(path)

	got, err = s.Revert(0)
	if err != nil {
		t.Fatal(err)
	}
	if rotated, _ := os.ReadFile(path + ".2"); got.Rotated != path+".2" || !bytes.Equal(rotated, afterFirst) {
		t.Errorf("second revert rotated to %q; want context.jsonl.2 holding the reverted file", got.Rotated)
	}
	if rotated, _ := os.ReadFile(path + ".1"); !bytes.Equal(rotated, before) {
		t.Error("context.jsonl.1 changed")
	}
	assertFile(t, path, lines[0])
	assertRestored(t, got, &Restored{SystemPrompt: sampleSteps()[0].prompt})
	s.Close()
	assertRestored(t, restoreFile(t, path), got)
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("directory holds %d files, want context.jsonl, .1 and .2", len(entries))
	}
}

func TestSessionRevertUnknownCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "context.jsonl")
	before, _ := sampleFile(t, path)
	s, _ := openSession(t, path)
	for _, id := range []int{-1, 3, 42} {
		_, err := s.Revert(id)
		var unknown *UnknownCheckpointError
		if !errors.As(err, &unknown) || unknown.ID != id || unknown.Taken != 3 {
			t.Errorf("Revert(%d) error = %v, want UnknownCheckpointError{ID:%d, Taken:3}", id, err, id)
		}
	}
	assertFile(t, path, string(before))
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d files after failed reverts, want 1", len(entries))
	}
}

func TestSessionRedact(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	scrub := func(line string) string { return strings.ReplaceAll(line, key, "[REDACTED]") }
	path := filepath.Join(t.TempDir(), "context.jsonl")
	s := createSession(t, path, WithRedact(scrub))
	if err := s.SystemPrompt("key is " + key); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(model.Message{Role: model.RoleAssistant, Reasoning: "use " + key, ToolCalls: []model.CallSpec{
		{ID: "c1", Name: "Shell", Arguments: `{"command":"curl -H 'Authorization: Bearer ` + key + `'"}`},
	}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(key)) || bytes.Count(data, []byte("[REDACTED]")) != 3 {
		t.Fatalf("file still holds the key or lost a redaction:\n%s", data)
	}
	got := restoreFile(t, path)
	if got.SystemPrompt != "key is [REDACTED]" || got.Messages[0].Reasoning != "use [REDACTED]" {
		t.Errorf("restored %q / %q", got.SystemPrompt, got.Messages[0].Reasoning)
	}
}

func TestSessionRedactMustKeepOneJSONLine(t *testing.T) {
	for name, redact := range map[string]func(string) string{
		"not json":   func(string) string { return "gone" },
		"two lines":  func(line string) string { return line + "\n{}" },
		"cut braces": func(line string) string { return strings.TrimSuffix(line, "}") },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "context.jsonl")
			s := createSession(t, path, WithRedact(redact))
			if err := s.Append(model.Message{Role: model.RoleUser, Content: "hi"}); !errors.Is(err, ErrBadRedaction) {
				t.Errorf("Append error = %v, want ErrBadRedaction", err)
			}
			assertFile(t, path, "")
		})
	}
}

func TestSessionOpenAndCreateErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "context.jsonl")
	createSession(t, path)
	if _, err := Create(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create on an existing file: %v, want fs.ErrExist", err)
	}
	if _, _, err := Open(context.Background(), filepath.Join(dir, "missing.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open on a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestSessionClosed(t *testing.T) {
	s := createSession(t, filepath.Join(t.TempDir(), "context.jsonl"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	_, cerr := s.Checkpoint()
	_, rerr := s.Revert(0)
	for name, err := range map[string]error{
		"Append": s.Append(model.Message{Role: model.RoleUser}), "Usage": s.Usage(1), "SystemPrompt": s.SystemPrompt("p"),
		"Sync": s.Sync(), "Checkpoint": cerr, "Revert": rerr,
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s =\n%s\nwant\n%s", filepath.Base(path), got, want)
	}
}

func BenchmarkSessionAppend10KiB(b *testing.B) {
	s := createSession(b, filepath.Join(b.TempDir(), "context.jsonl"))
	const outputLine = "line of <tool> output & \"quotes\"\n"
	msg := model.Message{Role: model.RoleTool, ToolCallID: "call_1", Name: "Shell",
		Content: strings.Repeat(outputLine, 10<<10/len(outputLine)+1)[:10<<10]}
	b.SetBytes(int64(len(msg.Content)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Append(msg); err != nil {
			b.Fatal(err)
		}
	}
}
