package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

func TestTextGolden(t *testing.T) {
	modes := map[string]TextOptions{
		"default": {},
		"quiet":   {Quiet: true},
		"verbose": {Verbose: true},
	}
	for scenario, events := range scenarios {
		for mode, opts := range modes {
			t.Run(scenario+"/"+mode, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				s := NewText(&stdout, &stderr, opts)
				for _, e := range events() {
					s.Emit(e)
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(stderr.Bytes(), []byte("\x1b[")) {
					t.Errorf("stderr has colour codes with colour off")
				}
				golden(t, scenario+"."+mode+".stderr", stderr.Bytes())
				// stdout is the final answer whatever the mode.
				golden(t, scenario+".stdout", stdout.Bytes())
			})
		}
	}
}

func result(status, reason, final string) event.Event {
	return event.Event{Time: time.Unix(0, 0),
		Data: event.Result{Status: status, TerminalReason: reason, FinalText: final}}
}

func TestTextFinalAnswer(t *testing.T) {
	tests := []struct {
		name, status, final, want string
	}{
		{"plain", "success", "answer", "answer\n"},
		{"trailing newlines collapse to one", "success", "line 1\nline 2\n\n\n", "line 1\nline 2\n"},
		{"CRLF ending", "success", "answer\r\n", "answer\n"},
		{"empty prints nothing", "success", "", ""},
		{"blank prints nothing", "success", " \n\n", ""},
		{"a failed run still prints what it has", "error", "partial answer", "partial answer\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			s := NewText(&stdout, &stderr, TextOptions{})
			s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.Text{Step: 1, Delta: "draft"}})
			s.Emit(result(tt.status, "max_iterations", tt.final))
			s.Emit(result("success", "completed", "second result"))
			if got := stdout.String(); got != tt.want {
				t.Errorf("stdout = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTextQuiet(t *testing.T) {
	tests := []struct {
		name       string
		last       event.Event
		wantStderr string // regexp; empty means stderr must be empty
	}{
		{"success is silent", result("success", "completed", "ok"), ""},
		{"failure says why in one line", event.Event{Time: time.Unix(0, 0),
			Data: &event.Result{Status: "error", TerminalReason: "transient", ExitCode: 75,
				Error: &event.ErrorInfo{Kind: "transient", Message: "HTTP 503:\nservice unavailable", HTTPStatus: 503}}},
			`^ERR failed: the provider kept failing after all retries: HTTP 503: service unavailable reason=transient exit_code=75 http_status=503 .*\n$`},
		{"limit without an error message", result("error", "max_steps", ""),
			`^ERR stopped: the step limit of a turn was reached reason=max_steps exit_code=0 .*\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			s := NewText(&stdout, &stderr, TextOptions{Quiet: true})
			for _, e := range successRun()[:12] {
				s.Emit(e)
			}
			s.Emit(tt.last)
			if tt.wantStderr == "" {
				if stderr.Len() != 0 {
					t.Errorf("stderr = %q, want nothing", stderr.String())
				}
				return
			}
			if !regexp.MustCompile(tt.wantStderr).MatchString(stderr.String()) {
				t.Errorf("stderr = %q, want a match for %s", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestTextColor(t *testing.T) {
	t.Setenv("NO_COLOR", "") // zerolog also reads NO_COLOR; the test decides here
	for _, color := range []bool{false, true} {
		var stderr bytes.Buffer
		s := NewText(&bytes.Buffer{}, &stderr, TextOptions{Color: color})
		s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.StepBegin{Step: 1}})
		if got := bytes.Contains(stderr.Bytes(), []byte("\x1b[")); got != color {
			t.Errorf("Color=%v: colour codes present = %v in %q", color, got, stderr.String())
		}
	}
}

type brokenWriter struct{}

var errBroken = errors.New("broken pipe")

func (brokenWriter) Write([]byte) (int, error) { return 0, errBroken }

func TestTextWriteErrors(t *testing.T) {
	// A broken stdout is reported; a broken stderr is ignored.
	s := NewText(brokenWriter{}, brokenWriter{}, TextOptions{})
	s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.StepBegin{Step: 1}})
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v after a stderr failure, want nil", err)
	}
	s.Emit(result("success", "completed", "answer"))
	if err := s.Err(); !errors.Is(err, errBroken) {
		t.Errorf("Err() = %v, want %v", err, errBroken)
	}
}

func TestTextConcurrentToolCalls(t *testing.T) {
	var stdout, stderr bytes.Buffer
	s := NewText(&stdout, &stderr, TextOptions{Verbose: true})
	const calls = 64
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			id := fmt.Sprintf("c%d", i)
			args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("file%d.go", i)})
			s.Emit(event.Event{Time: time.Unix(0, 0),
				Data: event.ToolCall{ID: id, Name: "ReadFile", Arguments: args}})
			s.Emit(event.Event{Time: time.Unix(0, 0), Data: event.Thinking{Step: i, Delta: "x"}})
			s.Emit(event.Event{Time: time.Unix(0, 0),
				Data: event.ToolResult{ID: id, Name: "ReadFile", DurationMS: 1}})
		})
	}
	wg.Wait()
	s.Emit(result("success", "completed", "done"))
	out := stderr.String()
	for i := range calls {
		if !strings.Contains(out, fmt.Sprintf("INF   ReadFile  file%d.go -> ok 1ms\n", i)) {
			t.Fatalf("no result line for call %d in:\n%s", i, out)
		}
	}
	if stdout.String() != "done\n" {
		t.Errorf("stdout = %q", stdout.String())
	}
}

func TestTextToolOutputExcerpt(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("out-%02d", i))
	}
	out := "ERROR: Command failed (exit code 2).\n" + strings.Join(lines, "\n")
	emit := func(opts TextOptions, isErr bool) string {
		var stdout, stderr bytes.Buffer
		s := NewText(&stdout, &stderr, opts)
		s.Emit(event.Event{Data: event.ToolCall{ID: "c1", Name: "Shell", Arguments: json.RawMessage(`{"command":"make"}`)}})
		s.Emit(event.Event{Data: event.ToolResult{ID: "c1", Name: "Shell", IsError: isErr, Output: out}})
		return stderr.String()
	}
	got := emit(TextOptions{}, true)
	want := "INF   Shell  make\n" +
		"WRN   Shell  make -> error 0ms: Command failed (exit code 2).\n" +
		"WRN       [... 22 more lines]\n"
	for i := 23; i <= 30; i++ {
		want += fmt.Sprintf("WRN       out-%02d\n", i)
	}
	if got != want {
		t.Errorf("failed call:\n%s\nwant:\n%s", got, want)
	}
	got = emit(TextOptions{Verbose: true}, true)
	if !strings.Contains(got, "DBG       out-01\n") || !strings.Contains(got, "DBG       out-05\n") || !strings.Contains(got, "WRN       [... 17 more lines]\n") ||
		strings.Contains(got, "out-06") || !strings.Contains(got, "WRN       out-30\n") {
		t.Errorf("failed call, verbose:\n%s", got)
	}
	got = emit(TextOptions{Verbose: true}, false)
	if !strings.Contains(got, "DBG       ERROR: Command failed") || !strings.Contains(got, "DBG       out-04\n") || strings.Contains(got, "out-05") ||
		!strings.Contains(got, "DBG       [... 26 more lines]\n") || strings.Contains(got, "WRN") {
		t.Errorf("successful call, verbose:\n%s", got)
	}
	if got := emit(TextOptions{}, false); strings.Contains(got, "out-") {
		t.Errorf("successful call shows output without debug:\n%s", got)
	}
}

func TestTextToolProgress(t *testing.T) {
	// The heartbeat of a running call: its line names the call as its tool_call line did,
	// and says how long it has run and when it last printed.
	at := time.Unix(0, 0)
	args, _ := json.Marshal(map[string]string{"command": "go test ./..."})
	tests := []struct {
		progress event.ToolProgress
		want     string
	}{
		{event.ToolProgress{ID: "c1", Name: "Shell", ElapsedMS: 15000},
			"INF   Shell  go test ./... still running after 15s: no output yet\n"},
		{event.ToolProgress{ID: "c1", Name: "Shell", ElapsedMS: 45000, OutputBytes: 12345, SinceOutputMS: 30000},
			"INF   Shell  go test ./... still running after 45s: 12.3 kB of output, the last 30s ago\n"},
		{event.ToolProgress{ID: "c1", Name: "Shell", ElapsedMS: 61000, OutputBytes: 812, SinceOutputMS: 200},
			"INF   Shell  go test ./... still running after 1m1s: 812 B of output\n"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		s := NewText(&stdout, &stderr, TextOptions{})
		s.Emit(event.Event{Time: at, Data: event.ToolCall{Step: 1, ID: "c1", Name: "Shell", Arguments: args}})
		stderr.Reset()
		s.Emit(event.Event{Time: at, Data: tt.progress})
		if stderr.String() != tt.want {
			t.Errorf("stderr = %q, want %q", stderr.String(), tt.want)
		}
	}
	// --quiet: no heartbeat either.
	var stdout, stderr bytes.Buffer
	s := NewText(&stdout, &stderr, TextOptions{Quiet: true})
	s.Emit(event.Event{Time: at, Data: tests[0].progress})
	if stderr.Len() != 0 {
		t.Errorf("--quiet wrote %q", stderr.String())
	}
}
