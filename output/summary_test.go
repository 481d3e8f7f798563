package output

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestArgsSummary(t *testing.T) {
	long := strings.Repeat("a", 150)
	tests := []struct {
		name, tool, args, want string
	}{
		{"shell command", "Shell", `{"command":"go test ./...","timeout":60}`, "go test ./..."},
		{"newlines flattened", "Shell", `{"command":"cd x &&\n\tmake\r\n  test"}`, "cd x && make test"},
		{"path", "ReadFile", `{"path":"main.go","line_offset":10}`, "main.go"},
		{"grep with a path", "Grep", `{"pattern":"TODO","path":"internal/"}`, "TODO in internal/"},
		{"grep without a path", "Grep", `{"pattern":"TODO"}`, "TODO"},
		{"glob in a directory", "Glob", `{"pattern":"*.go","directory":"/src"}`, "*.go in /src"},
		{"url", "FetchURL", `{"url":"https://example.com/a"}`, "https://example.com/a"},
		{"todo count", "SetTodoList", `{"todos":[{"title":"a"},{"title":"b"}]}`, "2 items"},
		{"todo read-back", "SetTodoList", `{"todos":null}`, "read back"},
		{"subagent description", "Task", `{"prompt":"long prompt","description":"explore"}`, "explore"},
		{"unknown tool falls back to JSON", "Mcp", `{"n": 3}`, `{"n": 3}`},
		{"no arguments", "Shell", `{}`, ""},
		{"empty", "Shell", ``, ""},
		{"non-object kept as string", "Shell", `"ls -la"`, "ls -la"},
		{"malformed JSON shown flat", "Shell", "{\"command\": \"ls\n", `{"command": "ls`},
		{"long value cut to 100 runes", "Shell", `{"command":"` + long + `"}`, long[:97] + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := argsSummary(tt.tool, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("argsSummary(%s, %s) = %q, want %q", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven ..."},
		{"ééééééééééé", 10, "ééééééé..."},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.width); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestFormatMS(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0ms"},
		{999, "999ms"},
		{1000, "1.0s"},
		{1234, "1.2s"},
		{59_949, "59.9s"},
		{65_432, "1m5s"},
		{3_723_000, "1h2m3s"},
	}
	for _, tt := range tests {
		if got := formatMS(tt.ms); got != tt.want {
			t.Errorf("formatMS(%d) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}

func TestOutputLines(t *testing.T) {
	got := outputLines("\n\r\n  first\tline \r\nsecond\n\n\n<system>Note: you already made this call.</system>")
	want := []string{"  first    line", "second"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("outputLines = %q, want %q", got, want)
	}
	if got := outputLines("  \n\n"); len(got) != 0 {
		t.Errorf("outputLines of blanks = %q", got)
	}
}

func TestErrorLine(t *testing.T) {
	long := "flow node \"check\": model call failed: " + strings.Repeat("filler ", 50) + "the cause"
	got := errorLine(long, 100)
	if n := len([]rune(got)); n != 100 {
		t.Errorf("errorLine is %d runes, want 100: %q", n, got)
	}
	if !strings.HasPrefix(got, "flow node \"check\"") || !strings.HasSuffix(got, "the cause") || !strings.Contains(got, " [...] ") {
		t.Errorf("errorLine = %q, want the start, a mark and the end", got)
	}
	if got := errorLine("short\n error", 100); got != "short error" {
		t.Errorf("errorLine = %q", got)
	}
}
