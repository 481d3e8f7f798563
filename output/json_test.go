package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/eventschema"
)

func TestJSONGolden(t *testing.T) {
	for name, events := range scenarios {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			s := NewJSON(&buf)
			for _, e := range events() {
				s.Emit(e)
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			lines := parseLines(t, buf.Bytes())
			if last := lines[len(lines)-1]["type"]; last != "result" {
				t.Errorf("last line has type %v, want result", last)
			}
			if err := eventschema.ValidateStream(buf.Bytes()); err != nil {
				t.Error(err)
			}
			golden(t, name+".ndjson", buf.Bytes())
		})
	}
}

// parseLines checks that out is NDJSON (every line a complete, valid JSON object) and
// returns the decoded lines.
func parseLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	var lines []map[string]any
	for i, line := range bytes.Split(out[:len(out)-1], []byte("\n")) {
		if !utf8.Valid(line) {
			t.Fatalf("line %d is not valid UTF-8: %q", i+1, line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %q", i+1, err, line)
		}
		lines = append(lines, m)
	}
	return lines
}

func TestJSONResultIsLast(t *testing.T) {
	var buf bytes.Buffer
	s := NewJSON(&buf)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Emit(event.Event{Time: at, Data: event.StepBegin{Turn: 1, Step: 1}})
	// A subagent's result does not end the stream.
	s.Emit(event.Event{Time: at, Parent: "c1", Data: event.Result{Status: "success"}})
	s.Emit(event.Event{Time: at, Data: event.Result{Status: "success"}})
	s.Emit(event.Event{Time: at, Data: event.Text{Step: 1, Delta: "late"}})
	s.Emit(event.Event{Time: at, Data: event.Result{Status: "error"}})

	lines := parseLines(t, buf.Bytes())
	var types []string
	for _, l := range lines {
		types = append(types, fmt.Sprint(l["type"]))
	}
	if got, want := strings.Join(types, ","), "step_begin,result,result"; got != want {
		t.Errorf("event types = %s, want %s", got, want)
	}
	if _, ok := lines[2]["parent_tool_call_id"]; ok {
		t.Errorf("the last line is the subagent's result: %v", lines[2])
	}
}

// lineWriter records every Write call separately. It takes no lock: the sink must never
// call it concurrently, and -race reports it if it does.
type lineWriter struct{ writes [][]byte }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}

func TestJSONConcurrentEmittersWriteWholeLines(t *testing.T) {
	const goroutines, perGoroutine = 32, 100
	w := &lineWriter{}
	s := NewJSON(w)
	big := strings.Repeat("é\n\"x\"\t", 2000) // large, with characters that need escaping
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				var data event.Payload = event.Text{Step: i, Delta: fmt.Sprintf("g%d-%d ", g, i)}
				if i%10 == 0 {
					data = event.ToolResult{ID: fmt.Sprintf("c%d-%d", g, i), Name: "Shell", Output: big}
				}
				s.Emit(event.Event{Time: time.Unix(0, 0), Data: data})
			}
		})
	}
	wg.Wait()
	s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.Result{Status: "success"}})

	if got, want := len(w.writes), goroutines*perGoroutine+1; got != want {
		t.Fatalf("got %d writes, want %d (one per event)", got, want)
	}
	for i, p := range w.writes {
		if bytes.IndexByte(p, '\n') != len(p)-1 {
			t.Fatalf("write %d is not exactly one line: %.80q", i, p)
		}
		if !json.Valid(p) {
			t.Fatalf("write %d is not valid JSON: %.80q", i, p)
		}
	}
	if !bytes.HasPrefix(w.writes[len(w.writes)-1], []byte(`{"type":"result"`)) {
		t.Errorf("last write is not the result: %.80q", w.writes[len(w.writes)-1])
	}
}

// failingWriter accepts ok writes, then fails every later one (or writes short).
type failingWriter struct {
	ok    int
	short bool
	calls int
	buf   bytes.Buffer
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.calls <= w.ok {
		return w.buf.Write(p)
	}
	if w.short {
		n, _ := w.buf.Write(p[:len(p)/2])
		return n, nil
	}
	return 0, errDiskFull
}

func TestJSONWriteErrors(t *testing.T) {
	tests := []struct {
		name  string
		short bool
		want  error
	}{
		{"error", false, errDiskFull},
		{"short write", true, io.ErrShortWrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &failingWriter{ok: 2, short: tt.short}
			s := NewJSON(w)
			for i := range 5 {
				s.Emit(event.Event{Time: time.Unix(0, 0),
					Data: event.StepBegin{Turn: 1, Step: i + 1}})
			}
			if err := s.Err(); !errors.Is(err, tt.want) {
				t.Errorf("Err() = %v, want %v", err, tt.want)
			}
			if w.calls != 3 {
				t.Errorf("the writer was called %d times, want 3: no writes after the first error", w.calls)
			}
			if got := strings.Count(w.buf.String(), "\n"); got != 2 {
				t.Errorf("%d complete lines were written, want 2", got)
			}
		})
	}
}

func TestJSONClosedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close() // the consumer went away, as with `| head -1`
	s := NewJSON(w)
	s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.StepBegin{Step: 1}})
	s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.StepBegin{Step: 2}})
	err = s.Err()
	if err == nil {
		t.Fatal("Err() = nil after writing to a closed pipe")
	}
	if runtime.GOOS != "windows" && !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Err() = %v, want EPIPE", err)
	}
}

func TestJSONInvalidText(t *testing.T) {
	tests := []struct {
		name string
		data event.Payload
		key  string
		want any
	}{
		{"invalid UTF-8 and NUL in a delta", event.Text{Delta: "a\xffb\x00c"}, "delta", "a\uFFFDb\x00c"},
		{"invalid UTF-8 in raw tool arguments", event.ToolCall{ID: "c1", Name: "Shell",
			Arguments: json.RawMessage("{\"command\":\"ls \xfe\"}")}, "arguments",
			map[string]any{"command": "ls \uFFFD"}},
		{"invalid UTF-8 in an error", event.Retry{Error: "bad \xc3"}, "error", "bad \uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			NewJSON(&buf).Emit(event.Event{Time: time.Unix(0, 0), Data: tt.data})
			lines := parseLines(t, buf.Bytes())
			if got := lines[0][tt.key]; fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

// notAnObject is a tool_call payload that encodes as a JSON string, which no event may be.
type notAnObject string

func (notAnObject) Type() event.Type { return event.TypeToolCall }

func TestJSONUnencodableEventBecomesWarning(t *testing.T) {
	tests := []struct {
		name string
		data event.Payload
	}{
		{"malformed raw arguments", event.ToolCall{ID: "c1", Name: "Shell", Arguments: json.RawMessage(`{"command":`)}},
		{"payload that is not an object", notAnObject("just a string")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			s := NewJSON(&buf)
			s.Emit(event.Event{Time: time.Unix(0, 0), Parent: "p1", Data: tt.data})
			lines := parseLines(t, buf.Bytes())
			if len(lines) != 1 || lines[0]["type"] != "warning" || lines[0]["parent_tool_call_id"] != "p1" {
				t.Fatalf("got %v, want one warning line for the subagent", lines)
			}
			if msg := fmt.Sprint(lines[0]["message"]); !strings.Contains(msg, "tool_call") {
				t.Errorf("warning %q does not name the dropped event", msg)
			}
			if s.Err() != nil {
				t.Errorf("Err() = %v", s.Err())
			}
		})
	}
}

func TestJSONFillsMissingTime(t *testing.T) {
	var buf bytes.Buffer
	s := NewJSON(&buf)
	s.now = func() time.Time { return time.Date(2026, 5, 6, 7, 8, 9, 10e6, time.UTC) }
	s.Emit(event.Event{Data: event.Warning{Message: "x"}})
	if got := parseLines(t, buf.Bytes())[0]["ts"]; got != "2026-05-06T07:08:09.010Z" {
		t.Errorf("ts = %v", got)
	}
}
