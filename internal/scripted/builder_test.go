package scripted_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

var defaultUsage = usage{100, 20, 120, 0}

// TestBuilders checks that each builder streams what go-openai expects.
func TestBuilders(t *testing.T) {
	tests := []struct {
		name string
		resp scripted.Response
		want turn
	}{
		{"text", scripted.Text("hello there, world"),
			turn{Text: "hello there, world", Finish: "stop", Usage: defaultUsage}},
		{"tool calls", scripted.ToolCalls(
			scripted.CallID("call_a", "Shell", `{"command":"ls -la"}`),
			scripted.CallID("call_b", "WriteFile", `{"path":"a.txt","content":"héllo ✓"}`)),
			turn{Finish: "tool_calls", Usage: defaultUsage, Calls: []call{
				{"call_a", "Shell", `{"command":"ls -la"}`},
				{"call_b", "WriteFile", `{"path":"a.txt","content":"héllo ✓"}`},
			}}},
		{"reasoning, text, usage and noise", scripted.Reply(
			scripted.Think("first think, "), scripted.KeepAlive(400), scripted.Raw("event: ping\n\n"),
			scripted.Say("then <speak> & "), scripted.Pause(time.Millisecond), scripted.Say("done."),
			scripted.Usage(50, 7, 30)),
			turn{Reasoning: "first think, ", Text: "then <speak> & done.", Finish: "stop", Usage: usage{50, 7, 57, 30}}},
		{"cut", scripted.Reply(scripted.Say("partial answer"), scripted.Cut(), scripted.Say("never sent")),
			turn{Text: "partial answer", Err: "unexpected EOF"}},
		{"cut at the token limit", scripted.Reply(scripted.Say("the first half"), scripted.Finish("length")),
			turn{Text: "the first half", Finish: "length", Usage: defaultUsage}},
		{"end", scripted.Reply(scripted.Say("partial answer"), scripted.End()),
			turn{Text: "partial answer"}},
		{"status", scripted.Status(429, scripted.ErrorBody("rate_limit_reached_error", "slow down")).Header("Retry-After", "1"),
			turn{RetryAfter: "1", Err: "api 429 rate_limit_reached_error"}},
		{"status with HTML", scripted.Status(502, "<html>bad gateway</html>"),
			turn{Err: "request 502"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := scripted.New(t, tt.resp)
			got := newClient(s.URL(), 1<<20).stream(t.Context())
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCallIDsAreStable(t *testing.T) {
	ids := func() []string {
		s := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"ls"}`), scripted.Call("ReadFile", `{"path":"x"}`)))
		got := newClient(s.URL(), 0).stream(t.Context())
		var out []string
		for _, c := range got.Calls {
			out = append(out, c.ID)
		}
		return out
	}
	first, second := ids(), ids()
	if len(first) != 2 || first[0] == "" || first[0] == first[1] || !reflect.DeepEqual(first, second) {
		t.Errorf("call ids %v then %v, want two distinct ids, the same each run", first, second)
	}
}

// TestHang checks that a hanging stream holds until the client gives up.
func TestHang(t *testing.T) {
	s := scripted.New(t, scripted.Reply(scripted.Say("thinking"), scripted.Hang()))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st, err := newClient(s.URL(), 0).oa.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, want := range []string{"", "thinking"} { // the role chunk, then the text
		resp, err := st.Recv()
		if err != nil || resp.Choices[0].Delta.Content != want {
			t.Fatalf("Recv = %+v, %v; want content %q", resp, err, want)
		}
	}
	cancel()
	if _, err := st.Recv(); !errors.Is(err, context.Canceled) {
		t.Errorf("Recv after cancel = %v, want context.Canceled", err)
	}
}

// TestDelayHeaders checks that a client's response-header timeout fires.
func TestDelayHeaders(t *testing.T) {
	s := scripted.New(t, scripted.Text("late").DelayHeaders(time.Hour))
	hc := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 20 * time.Millisecond}}
	resp, err := hc.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err == nil {
		resp.Body.Close()
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Post = %v, want a timeout", err)
	}
}
