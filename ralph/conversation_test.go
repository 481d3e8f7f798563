package ralph

import (
	"bufio"
	"strings"
	"testing"
)

func TestUserText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, text, err string
	}{
		{line: `{"role":"user","content":"  fix it \n"}`, text: "fix it"},
		{line: `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}`, text: "a\nb"},
		{line: `{"content":"x","role":"user","extra":1}`, text: "x"},
		{line: `not json`, err: "not a JSON object"},
		{line: `["role","user"]`, err: "not a JSON object"},
		{line: `{"content":"x"}`, err: "role is none"},
		{line: `{"role":"system","content":"x"}`, err: `role is "system"`},
		{line: `{"role":"user","content":""}`, err: "no text"},
		{line: `{"role":"user"}`, err: "content must be"},
		{line: `{"role":"user","content":5}`, err: "content must be"},
		{line: `{"role":"user","content":[{"type":"image_url"}]}`, err: "no text"},
		{line: `{"role":"user","content":[{"type":"text"}]}`, err: "without text"},
	}
	for _, tt := range tests {
		text, err := userText([]byte(tt.line))
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want %q", tt.line, err, tt.err)
		case tt.err == "" && (err != nil || text != tt.text):
			t.Errorf("%s: %q, %v; want %q", tt.line, text, err, tt.text)
		}
	}
}

func TestReadLineBound(t *testing.T) {
	t.Parallel()
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 100)+"\nshort\nlast"), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
	}{{"", true}, {"short\n", false}, {"last", false}} {
		line, tooLong, _ := readLine(br, 50)
		if string(line) != want.line || tooLong != want.tooLong {
			t.Errorf("readLine = %q, %v; want %q, %v", line, tooLong, want.line, want.tooLong)
		}
	}
}
