package ralph

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
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

// A conversation reads its messages from the input, skips what is not one (or what Plan
// refuses) with a warning, answers the rest in order, and ends on the first answer that
// does not go on.
func TestConverse(t *testing.T) {
	t.Parallel()
	read := func(input string) <-chan Message {
		ch := make(chan Message)
		go ReadMessages(context.Background(), strings.NewReader(input), 1<<10, ch)
		return ch
	}
	converse := func(first *string, input string, stopAt string) ([]string, []event.Event, error) {
		var answered []string
		rec := &testkit.Recorder{}
		c := Conversation[string]{
			Plan: func(_ context.Context, text string) (string, error) {
				if text == "/unknown" {
					return "", errors.New("no such skill")
				}
				return text, nil
			},
			Answer: func(_ context.Context, p string) (string, bool, error) {
				answered = append(answered, p)
				if p == stopAt {
					return "", false, errors.New("turn failed")
				}
				return "re " + p, true, nil
			},
			Sink: rec,
		}
		err := c.Converse(context.Background(), first, read(input))
		return answered, rec.Events(), err
	}
	msg := func(text string) string { return `{"role":"user","content":"` + text + `"}` + "\n" }

	first := "hello"
	answered, events, err := converse(&first, msg("a")+"\n"+msg("b"), "")
	if err != nil || strings.Join(answered, " ") != "hello a b" || len(events) != 3 {
		t.Fatalf("answered %q with %d events, err %v", answered, len(events), err)
	}
	for i, line := range []int{0, 1, 3} {
		if a, ok := events[i].Data.(event.Answer); !ok || a.Message != i+1 || a.Line != line || a.FinalText != "re "+answered[i] {
			t.Errorf("event %d: %+v, want the answer to message %d on line %d", i, events[i].Data, i+1, line)
		}
	}

	answered, events, err = converse(nil, msg("a")+"not json\n"+msg("/unknown")+msg("b"), "")
	skipped, ok := errors.AsType[*SkippedError](err)
	if !ok || skipped.Count != 2 || !strings.HasPrefix(skipped.First, "line 2: not a JSON object") {
		t.Fatalf("err %v, want 2 skipped lines, the first line 2", err)
	}
	if strings.Join(answered, " ") != "a b" || len(events) != 4 {
		t.Errorf("answered %q with %d events, want a b and 2 warnings", answered, len(events))
	}
	if w, ok := events[2].Data.(event.Warning); !ok || w.Message != "stdin line 3: no such skill; skipped" {
		t.Errorf("event %+v, want the warning for line 3", events[2].Data)
	}

	answered, _, err = converse(nil, msg("a")+msg("b")+msg("c"), "b")
	if err == nil || err.Error() != "turn failed" || strings.Join(answered, " ") != "a b" {
		t.Errorf("answered %q, err %v; want the conversation to end at b", answered, err)
	}

	if _, _, err := converse(nil, "\n \n", ""); !errors.Is(err, ErrNoMessages) {
		t.Errorf("blank input: err %v, want ErrNoMessages", err)
	}
}
