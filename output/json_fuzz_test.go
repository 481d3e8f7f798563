package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/event"
)

// FuzzJSONSink feeds arbitrary text and raw argument bytes through the NDJSON sink: every
// event must come out as exactly one line of valid UTF-8 JSON, and result stays last.
func FuzzJSONSink(f *testing.F) {
	f.Add("hello", []byte(`{"command":"ls"}`))
	f.Add("bad \xff\xfe utf8 \x00 nul\nnewline", []byte("{\"a\":\"\xff\"}"))
	f.Add("", []byte("not json"))
	f.Add("\u2028\u2029</script>", []byte(`"a string"`))
	f.Fuzz(func(t *testing.T, text string, args []byte) {
		var out bytes.Buffer
		s := NewJSON(&out)
		at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		evs := []event.Event{
			{Time: at, Data: event.Text{Step: 1, Delta: text}},
			{Time: at, Data: event.ToolCall{Step: 1, ID: text, Name: "Shell", Arguments: json.RawMessage(args)}},
			{Time: at, Data: event.ToolResult{Step: 1, ID: "x", Name: "Shell", Output: text}},
			{Time: at, Data: event.Result{FinalText: text}},
			{Time: at, Data: event.Text{Step: 2, Delta: "after the result"}},
		}
		for _, e := range evs {
			s.Emit(e)
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 4 {
			t.Fatalf("%d lines for 4 events before the result:\n%s", len(lines), out.String())
		}
		for _, l := range lines {
			if !utf8.ValidString(l) {
				t.Fatalf("invalid UTF-8: %q", l)
			}
			// UseNumber: a huge number in the model's arguments is valid JSON, just not a float64.
			dec := json.NewDecoder(strings.NewReader(l))
			dec.UseNumber()
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("not a JSON object: %q: %v", l, err)
			}
		}
		var last map[string]any
		json.Unmarshal([]byte(lines[3]), &last)
		if last["type"] != "result" {
			t.Fatalf("last line is %v", last["type"])
		}
	})
}
