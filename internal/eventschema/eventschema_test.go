package eventschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/docs"
)

func TestSchemaCompiles(t *testing.T) {
	if _, err := Schema(); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{name: "init", line: `{"type":"init","ts":"2026-01-02T03:04:05.250Z","schema_version":1,"session_id":"s","model":"m","base_url_host":"h:1","work_dir":"/w","tools":["Shell"],"version":"dev"}`},
		{name: "subagent text", line: `{"type":"text","ts":"2026-01-02T03:04:05.250Z","parent_tool_call_id":"c1","step":1,"delta":"hi"}`},
		{name: "raw arguments", line: `{"type":"tool_call","ts":"2026-01-02T03:04:05.250Z","step":1,"id":"c","name":"Shell","arguments":"{not json"}`},
		{name: "failed result", line: `{"type":"result","ts":"2026-01-02T03:04:05.250Z","status":"error","terminal_reason":"transient","exit_code":75,"final_text":"","error":{"kind":"transient","message":"HTTP 500","http_status":500,"retryable":true},"steps":3,"tool_calls":0,"iterations":0,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0},"duration_ms":5,"session_id":"s"}`},
		{name: "unknown type", line: `{"type":"telepathy","ts":"2026-01-02T03:04:05.250Z"}`, want: "telepathy"},
		{name: "missing ts", line: `{"type":"warning","message":"m"}`, want: "ts"},
		{name: "local time", line: `{"type":"warning","ts":"2026-01-02T03:04:05+01:00","message":"m"}`, want: "/ts"},
		{name: "unknown field", line: `{"type":"warning","ts":"2026-01-02T03:04:05.250Z","message":"m","mood":"calm"}`, want: "mood"},
		{name: "wrong type", line: `{"type":"step_begin","ts":"2026-01-02T03:04:05.250Z","turn":"1","step":1}`, want: "/turn"},
		{name: "missing field", line: `{"type":"tool_result","ts":"2026-01-02T03:04:05.250Z","step":1,"id":"c","name":"Shell","output":"","duration_ms":1}`, want: "is_error"},
		{name: "success with an error", line: `{"type":"result","ts":"2026-01-02T03:04:05.250Z","status":"success","terminal_reason":"completed","exit_code":0,"final_text":"","error":{"kind":"x","message":"y","retryable":false},"steps":1,"tool_calls":0,"iterations":0,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0},"duration_ms":5,"session_id":"s"}`, want: "result"},
		{name: "status disagrees with exit code", line: `{"type":"result","ts":"2026-01-02T03:04:05.250Z","status":"success","terminal_reason":"error","exit_code":1,"final_text":"","error":{"kind":"x","message":"y","retryable":false},"steps":1,"tool_calls":0,"iterations":0,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0},"duration_ms":5,"session_id":"s"}`, want: "/status"},
		{name: "unknown exit code", line: `{"type":"result","ts":"2026-01-02T03:04:05.250Z","status":"error","terminal_reason":"error","exit_code":10,"final_text":"","error":{"kind":"x","message":"y","retryable":false},"steps":1,"tool_calls":0,"iterations":0,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0},"duration_ms":5,"session_id":"s"}`, want: "/exit_code"},
		{name: "not JSON", line: `{"type":`, want: "not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate([]byte(tt.line))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("valid line refused: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("invalid line accepted")
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestGoldenStreamsMatch(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "output", "testdata", "*.ndjson"))
	if len(files) == 0 {
		t.Fatal("no golden NDJSON files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateStream(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestEveryEventHasTheEnvelope: with no shared envelope $ref (ajv cannot follow one through
// the result's if/then/else), each event's $defs entry repeats the envelope fields, and
// additionalProperties: false would refuse a subagent's parent_tool_call_id where one is
// missing.
func TestEveryEventHasTheEnvelope(t *testing.T) {
	var schema struct {
		Properties struct {
			Type struct {
				Enum []string `json:"enum"`
			} `json:"type"`
		} `json:"properties"`
		Defs map[string]struct {
			Type                 string         `json:"type"`
			Required             []string       `json:"required"`
			Properties           map[string]any `json:"properties"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		} `json:"$defs"`
	}
	if err := jsonUnmarshal([]byte(docs.EventsSchema), &schema); err != nil {
		t.Fatal(err)
	}
	for _, typ := range schema.Properties.Type.Enum {
		d, ok := schema.Defs[typ]
		if !ok {
			continue // TestSchemaMatchesTheRegistry reports it
		}
		if d.Type != "object" {
			t.Errorf("%s: type %q, want object", typ, d.Type)
		}
		if len(d.Required) < 2 || d.Required[0] != "type" || d.Required[1] != "ts" {
			t.Errorf("%s: required %v does not start with type, ts", typ, d.Required)
		}
		want := map[string]any{
			"type":                map[string]any{"const": typ},
			"ts":                  map[string]any{"$ref": "#/$defs/ts"},
			"parent_tool_call_id": map[string]any{"$ref": "#/$defs/parent_tool_call_id"},
		}
		for k, v := range want {
			if got := d.Properties[k]; !reflect.DeepEqual(got, v) {
				t.Errorf("%s: properties.%s = %v, want %v", typ, k, got, v)
			}
		}
		if d.AdditionalProperties == nil || *d.AdditionalProperties {
			t.Errorf("%s: additionalProperties is not false", typ)
		}
	}
}
