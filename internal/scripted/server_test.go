package scripted_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestRequestsRecordWhatWasSent runs a tool step by hand and checks that the
// second request carries the tool result and the reasoning back.
func TestRequestsRecordWhatWasSent(t *testing.T) {
	s := scripted.New(t, scripted.Scenario(t, "reasoning")...)
	c := newClient(s.URL(), 0)
	user := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "what changed?"}
	first := c.stream(t.Context(), user)
	assistant := openai.ChatCompletionMessage{
		Role: openai.ChatMessageRoleAssistant, ReasoningContent: first.Reasoning,
		ToolCalls: []openai.ToolCall{{ID: first.Calls[0].ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: first.Calls[0].Name, Arguments: first.Calls[0].Args}}},
	}
	result := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: first.Calls[0].ID, Content: "(no output)"}
	c.stream(t.Context(), user, assistant, result)

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Problem != "" || r.Answer != i || r.Method != http.MethodPost || r.Body["stream"] != true {
			t.Errorf("request %d: problem %q, answer %d, method %s, stream %v", i+1, r.Problem, r.Answer, r.Method, r.Body["stream"])
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("request %d: Authorization %q", i+1, got)
		}
	}
	msgs := reqs[1].Messages()
	if len(msgs) != 3 {
		t.Fatalf("second request has %d messages, want 3", len(msgs))
	}
	if msgs[1]["reasoning_content"] != first.Reasoning {
		t.Errorf("assistant reasoning_content = %v, want %q", msgs[1]["reasoning_content"], first.Reasoning)
	}
	if msgs[2]["role"] != "tool" || msgs[2]["tool_call_id"] != "call_think_1" || msgs[2]["content"] != "(no output)" {
		t.Errorf("tool message = %v", msgs[2])
	}
}

func TestScriptRunsOut(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := scripted.New(rec, scripted.Text("only one"))
	c := newClient(s.URL(), 0)
	if got := c.stream(t.Context()); got.Text != "only one" {
		t.Fatalf("first reply %+v", got)
	}
	if got := c.stream(t.Context()); got.Err != "api 500 scripted_error" {
		t.Errorf("second reply error %q, want api 500 scripted_error", got.Err)
	}
	if errs := rec.errors(); len(errs) != 1 {
		t.Errorf("server reported %q, want one error", errs)
	}
	if r := s.Requests()[1]; r.Answer != -1 || r.Problem == "" {
		t.Errorf("overrun request recorded as answer %d, problem %q", r.Answer, r.Problem)
	}
}

func TestForever(t *testing.T) {
	s := scripted.New(t, scripted.Text("first"), scripted.Status(503, scripted.ErrorBody("engine_overloaded_error", "busy")).Forever())
	c := newClient(s.URL(), 0)
	c.stream(t.Context())
	for range 3 {
		if got := c.stream(t.Context()); got.Err != "api 503 engine_overloaded_error" {
			t.Errorf("got %q, want api 503", got.Err)
		}
	}
	var answers []int
	for _, r := range s.Requests() {
		answers = append(answers, r.Answer)
	}
	if want := []int{0, 1, 1, 1}; !reflect.DeepEqual(answers, want) {
		t.Errorf("answers %v, want %v", answers, want)
	}
}

// TestRejectsBadRequests checks that malformed requests are answered like a
// real server would, recorded, reported, and do not use up the script.
func TestRejectsBadRequests(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := scripted.New(rec, scripted.Text("ok"))
	tests := []struct {
		method, path, body string
		want               int
	}{
		{http.MethodGet, "/v1/chat/completions", "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/completions", `{}`, http.StatusNotFound},
		{http.MethodPost, "/v1/chat/completions", `not json`, http.StatusBadRequest},
		{http.MethodPost, "/v1/chat/completions", `[1,2]`, http.StatusBadRequest},
	}
	base := strings.TrimSuffix(s.URL(), "/v1")
	for _, tt := range tests {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, base+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s %s %q: status %d body %s, want %d with a JSON error", tt.method, tt.path, tt.body, resp.StatusCode, body, tt.want)
		}
	}
	if got := newClient(s.URL(), 0).stream(t.Context()); got.Text != "ok" {
		t.Errorf("valid request after bad ones got %+v, want the scripted answer", got)
	}
	reqs := s.Requests()
	if len(reqs) != len(tests)+1 || len(rec.errors()) != len(tests) {
		t.Errorf("%d requests and %d reported errors, want %d and %d", len(reqs), len(rec.errors()), len(tests)+1, len(tests))
	}
	for _, r := range reqs[:len(tests)] {
		if r.Problem == "" || r.Answer != -1 {
			t.Errorf("bad request %s %s recorded with problem %q, answer %d", r.Method, r.Path, r.Problem, r.Answer)
		}
	}
}

func TestWaitRequests(t *testing.T) {
	s := scripted.New(t, scripted.Text("one"), scripted.Text("two"))
	c := newClient(s.URL(), 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.stream(t.Context())
		c.stream(t.Context())
	}()
	if !s.WaitRequests(t.Context(), 2) {
		t.Fatal("WaitRequests gave up")
	}
	if n := len(s.Requests()); n < 2 {
		t.Errorf("WaitRequests returned with %d requests", n)
	}
	<-done
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if s.WaitRequests(ctx, 3) {
		t.Error("WaitRequests reported a third request that never came")
	}
}

func TestKeepAliveEveryRunsUntilTheClientLeaves(t *testing.T) {
	s := scripted.New(t, scripted.Reply(scripted.Say("hold on"), scripted.KeepAliveEvery(time.Millisecond), scripted.Say("never sent")))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	keepAlives := 0
	for keepAlives < 20 && lines.Scan() {
		switch l := lines.Text(); {
		case l == ": keep-alive":
			keepAlives++
		case strings.Contains(l, "never sent"):
			t.Fatalf("a part after KeepAliveEvery was sent: %s", l)
		}
	}
	if keepAlives < 20 {
		t.Fatalf("the stream ended after %d keep-alives: %v", keepAlives, lines.Err())
	}
}

// TestIgnoresStrayRequests: a request without the server's path prefix comes from a client
// of another server that had the same port (a parallel test's, in this process or another);
// it gets a 404, is not recorded, uses up nothing and fails nothing, and the client under
// test is served as if it had not happened. This is the cross-talk of issue 28 #7.
func TestIgnoresStrayRequests(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := scripted.New(rec, scripted.Text("ok"))
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	origin := u.Scheme + "://" + u.Host
	prefix := strings.TrimSuffix(u.Path, "/v1")
	for _, stray := range []struct{ method, path string }{
		{http.MethodGet, "/mcp"},
		{http.MethodPost, "/v1/chat/completions"},
		{http.MethodPost, prefix + "x/v1/chat/completions"},
	} {
		req, err := http.NewRequestWithContext(t.Context(), stray.method, origin+stray.path, strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("stray %s %s: status %d, want 404", stray.method, stray.path, resp.StatusCode)
		}
	}
	if got := newClient(s.URL(), 0).stream(t.Context()); got.Text != "ok" {
		t.Errorf("the client under test got %+v after the strays, want the scripted answer", got)
	}
	if n := len(s.Requests()); n != 1 || s.Strays() != 3 || len(rec.errors()) != 0 {
		t.Errorf("%d requests recorded, %d strays, errors %v; want 1, 3 and none", n, s.Strays(), rec.errors())
	}
}

// A client killed while it writes a request's body leaves the server a body that ends
// early. Only a server told that its clients are killed on purpose (a crash test) lets
// that go; any other reports it, as it reports every malformed request.
func TestAClientKilledMidBody(t *testing.T) {
	for _, mayDie := range []bool{false, true} {
		rec := &recordingTB{TB: t}
		s := scripted.New(rec, scripted.Text("never sent"))
		if mayDie {
			s.ClientsMayDie()
		}
		u, err := url.Parse(s.URL())
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		// Half of a promised body, then the connection closes: the writer is gone.
		fmt.Fprintf(conn, "POST %s/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":\"m\",", u.Path, u.Host)
		conn.Close()
		var arrived bool
		if mayDie {
			for deadline := time.Now().Add(5 * time.Second); s.Cut() == 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			if s.Cut() != 1 {
				t.Errorf("with ClientsMayDie: %d requests let go, want 1", s.Cut())
			}
			arrived = len(s.Requests()) > 0
		} else {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			arrived = s.WaitRequests(ctx, 1)
			cancel()
		}
		switch errs := rec.errors(); {
		case mayDie && (arrived || len(errs) > 0):
			t.Errorf("with ClientsMayDie: recorded %v, reported %q; want neither", arrived, errs)
		case !mayDie && (!arrived || len(errs) != 1 || !strings.Contains(errs[0], "reading body")):
			t.Errorf("by default: recorded %v, reported %q; want one report of the body", arrived, errs)
		}
	}
}

// A request that carries the agent's answer to a call of a tool it does not offer fails
// the test, once, unless the test allows it.
func TestUnknownToolFailsTheTest(t *testing.T) {
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleUser, Content: "hi"},
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "Think", Arguments: "{}"}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: `no tool named "Think"; the tools are: Shell`},
	}
	for _, allow := range []bool{false, true} {
		rec := &recordingTB{TB: t}
		s := scripted.New(rec, scripted.Text("ok").Forever())
		if allow {
			s.AllowUnknownTools()
		}
		c := newClient(s.URL(), 0)
		c.stream(t.Context())
		for range 2 {
			if got := c.stream(t.Context(), history...); got.Text != "ok" {
				t.Fatalf("reply %+v", got)
			}
		}
		errs := rec.errors()
		if allow && len(errs) != 0 {
			t.Errorf("allowed: server reported %q, want nothing", errs)
		}
		if !allow && (len(errs) != 1 || !strings.Contains(errs[0], `request 2 answers a call of a tool the run does not offer (no tool named \"Think\"`)) {
			t.Errorf("server reported %q, want one error naming request 2 and Think", errs)
		}
	}
}
