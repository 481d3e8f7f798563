package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestResolvePath(t *testing.T) {
	work := t.TempDir()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "relative", in: "a/b.txt", want: filepath.Join(work, "a", "b.txt")},
		{name: "dot", in: ".", want: work},
		{name: "inner dot-dot stays inside", in: "a/../b.txt", want: filepath.Join(work, "b.txt")},
		{name: "absolute outside allowed", in: outside, want: outside},
		{name: "home", in: "~/notes.txt", want: filepath.Join(home, "notes.txt")},
		{name: "escape refused", in: "../x.txt", wantErr: true},
		{name: "deep escape refused", in: "a/../../x.txt", wantErr: true},
		{name: "bare dot-dot refused", in: "..", wantErr: true},
		{name: "empty refused", in: "  ", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolvePath(work, tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("resolvePath(%q) = %q, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("resolvePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// mustCall runs tool with args (marshalled to JSON unless already a string) and fails
// the test on a Go error, which no argument mistake should cause.
func mustCall(t testing.TB, tool Tool, args any) Result {
	t.Helper()
	var raw []byte
	if s, ok := args.(string); ok {
		raw = []byte(s)
	} else {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tool.Run(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tool.Name(), raw, err)
	}
	return res
}

// writeTestFile creates dir/name with content and returns its path.
func writeTestFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
