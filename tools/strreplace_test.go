package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStrReplaceFile(t *testing.T) {
	const original = "alpha beta\ngamma beta\ndelta\n"
	tests := []struct {
		name     string
		original string // content of f.txt before the call; default original
		args     string // JSON arguments; f.txt is in the work dir
		isError  bool
		contains []string
		want     string // content afterwards; "" means unchanged
	}{
		{
			name:     "one edit object",
			args:     `{"path":"f.txt","edit":{"old":"delta","new":"DELTA"}}`,
			contains: []string{"applied 1 edit with 1 replacement"},
			want:     "alpha beta\ngamma beta\nDELTA\n",
		},
		{
			name:     "first occurrence only, with a note",
			args:     `{"path":"f.txt","edit":{"old":"beta","new":"B"}}`,
			contains: []string{"applied 1 edit with 1 replacement", "occurs 2 times"},
			want:     "alpha B\ngamma beta\ndelta\n",
		},
		{
			name:     "replace_all",
			args:     `{"path":"f.txt","edit":{"old":"beta","new":"B","replace_all":true}}`,
			contains: []string{"applied 1 edit with 2 replacements"},
			want:     "alpha B\ngamma B\ndelta\n",
		},
		{
			name:     "list applied in order",
			args:     `{"path":"f.txt","edit":[{"old":"alpha","new":"one"},{"old":"one beta","new":"two"},{"old":"\n","new":"|","replace_all":true}]}`,
			contains: []string{"applied 3 edits with 5 replacements"},
			want:     "two|gamma beta|delta|",
		},
		{
			name:     "edit sent as a JSON string",
			args:     `{"path":"f.txt","edit":"[{\"old\":\"gamma\",\"new\":\"G\"}]"}`,
			contains: []string{"applied 1 edit with 1 replacement"},
			want:     "alpha beta\nG beta\ndelta\n",
		},
		{
			name:     "deleting text",
			args:     `{"path":"f.txt","edit":{"old":"gamma beta\n","new":""}}`,
			contains: []string{"applied 1 edit"},
			want:     "alpha beta\ndelta\n",
		},
		{
			name:     "absent old text leaves the file untouched",
			args:     `{"path":"f.txt","edit":[{"old":"alpha","new":"A"},{"old":"omega","new":"O"}]}`,
			isError:  true,
			contains: []string{"edit 2 of 2: old text not found", "file is unchanged"},
		},
		{
			name:     "text consumed by an earlier edit",
			args:     `{"path":"f.txt","edit":[{"old":"alpha","new":"A"},{"old":"alpha beta","new":"x"}]}`,
			isError:  true,
			contains: []string{"edit 2 of 2", "an earlier edit of this call changed it"},
		},
		{
			name:     "CRLF hint",
			original: "one\r\ntwo\r\n",
			args:     `{"path":"f.txt","edit":{"old":"one\ntwo","new":"x"}}`,
			isError:  true,
			contains: []string{"CRLF"},
		},
		{
			name:     "same text is not an error",
			args:     `{"path":"f.txt","edit":{"old":"delta","new":"delta"}}`,
			contains: []string{"not rewritten"},
		},
		{name: "empty old", args: `{"path":"f.txt","edit":{"old":"","new":"x"}}`, isError: true, contains: []string{"edit 1 of 1: old is empty"}},
		{name: "missing new", args: `{"path":"f.txt","edit":{"old":"alpha"}}`, isError: true, contains: []string{"both old and new"}},
		{name: "empty list", args: `{"path":"f.txt","edit":[]}`, isError: true, contains: []string{"no edits"}},
		{name: "edit of wrong type", args: `{"path":"f.txt","edit":5}`, isError: true, contains: []string{"object"}},
		{name: "missing edit", args: `{"path":"f.txt"}`, isError: true, contains: []string{`"edit"`}},
		{name: "missing file", args: `{"path":"nope.txt","edit":{"old":"a","new":"b"}}`, isError: true, contains: []string{"nope.txt"}},
		{name: "escape refused", args: `{"path":"../f.txt","edit":{"old":"a","new":"b"}}`, isError: true, contains: []string{"outside the work dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			before := tt.original
			if before == "" {
				before = original
			}
			path := filepath.Join(dir, "f.txt")
			writeMode(t, path, before, 0o640)
			res := mustCall(t, NewStrReplaceFile(Env{WorkDir: dir}), tt.args)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tt.isError, res.Output)
			}
			for _, s := range tt.contains {
				if !strings.Contains(res.Output, s) {
					t.Errorf("output %q lacks %q", res.Output, s)
				}
			}
			want := tt.want
			if want == "" {
				want = before
			}
			checkFile(t, path, want, false, 0o640)
			checkNoTempFiles(t, dir)
		})
	}
}

func TestStrReplaceFileSchema(t *testing.T) {
	tool := NewStrReplaceFile(Env{})
	var schema struct {
		Type       string `json:"type"`
		Required   []string
		Properties map[string]struct {
			AnyOf []struct {
				Type  string          `json:"type"`
				Items json.RawMessage `json:"items"`
			} `json:"anyOf"`
		}
	}
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if schema.Type != "object" || strings.Join(schema.Required, ",") != "path,edit" {
		t.Errorf("schema root = %+v", schema)
	}
	anyOf := schema.Properties["edit"].AnyOf
	if len(anyOf) != 2 || anyOf[0].Type != "object" || anyOf[1].Type != "array" || len(anyOf[1].Items) == 0 {
		t.Errorf("edit should accept an object or an array of objects: %+v", anyOf)
	}
	for _, tl := range []Tool{NewShell(Env{}), NewReadFile(Env{}), NewWriteFile(Env{}), tool} {
		if !json.Valid(tl.Schema()) || tl.Description() == "" {
			t.Errorf("%s: bad schema or empty description", tl.Name())
		}
	}
}

func TestStrReplaceFileLargeFileRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(strReplaceMaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res := mustCall(t, NewStrReplaceFile(Env{WorkDir: dir}), `{"path":"big.txt","edit":{"old":"a","new":"b"}}`)
	if !res.IsError || !strings.Contains(res.Output, "MiB") {
		t.Fatalf("got %v %q", res.IsError, res.Output)
	}
}
