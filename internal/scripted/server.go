package scripted

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running scripted chat-completions endpoint, closed when the test ends.
type Server struct {
	t      testing.TB
	http   *httptest.Server
	done   chan struct{} // closed at cleanup so hanging and sleeping handlers return
	script []Response
	// answer, when set, makes each response from the request instead of the script.
	answer func(Request) Response
	prefix string // the path every URL of this server starts with: "/" and 12 random characters
	strays atomic.Int64
	mayDie atomic.Bool  // ClientsMayDie
	cut    atomic.Int64 // requests whose body ended early under ClientsMayDie
	// unknown is set by AllowUnknownTools; unknownSeen once a request carried the agent's
	// answer to a call of a tool it does not offer, reported once.
	unknown, unknownSeen atomic.Bool

	mu      sync.Mutex
	next    int
	reqs    []Request
	arrived chan struct{} // closed and replaced when a request is recorded
}

// Request is one request the server received, valid or not.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Raw    []byte         // the body as sent
	Body   map[string]any // the body decoded as a JSON object, nil if it is not one
	// Answer is the index in the script of the response that was played, or -1
	// when the request was rejected or came after the script ran out.
	Answer int
	// Problem says why the request was rejected or not answered by the script;
	// empty for a good request.
	Problem string
}

// Messages returns the "messages" array of the request body, each message as a
// map, so tests can check what the client sent back (tool results,
// reasoning_content, ...). Another protocol's conversation is given in the same shape, by
// its dialect (dialects).
func (r Request) Messages() []map[string]any {
	if d := dialectOf(r.Path); d != nil && d.messages != nil {
		if msgs, ok := d.messages(r.Body); ok {
			return msgs
		}
	}
	list, _ := r.Body["messages"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, m := range list {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// MessagesOf returns the request's messages with the given role, in order.
func (r Request) MessagesOf(role string) []map[string]any {
	var out []map[string]any
	for _, m := range r.Messages() {
		if m["role"] == role {
			out = append(out, m)
		}
	}
	return out
}

// chatPath is the path of OpenAI-compatible chat completions (kimi, openai_legacy), which
// the script is written in.
const chatPath = "/v1/chat/completions"

// dialect is how the server speaks one other wire protocol (one per protocol of
// model/protocols): its requests' paths, the script's responses in its stream, and its
// requests' conversation in the chat-completions shape tests check. A test tells protocols
// apart by Request.Path.
type dialect struct {
	// path says the paths it answers, for the error that names them; match tells them.
	path  string
	match func(p string) bool
	// render returns a response as the protocol streams it; nil plays it as scripted.
	render func(Response) Response
	// stream, when set, translates the steps as they are written instead (and floods).
	stream func(w io.Writer) *responsesWriter
	// messages reads a request's conversation; ok is false when the body has none.
	messages func(body map[string]any) (msgs []map[string]any, ok bool)
}

// dialects are the protocols the server speaks besides chat completions.
var dialects = []dialect{responsesDialect, anthropicDialect, geminiDialect}

// dialectOf returns the dialect that answers path p; nil for chat completions.
func dialectOf(p string) *dialect {
	for i := range dialects {
		if dialects[i].match(p) {
			return &dialects[i]
		}
	}
	return nil
}

// modelPaths names the paths the server answers.
func modelPaths() string {
	paths := []string{chatPath}
	for _, d := range dialects {
		paths = append(paths, d.path)
	}
	return strings.Join(paths, ", ")
}

// New starts a server that answers request i with responses[i]. It is closed by
// t.Cleanup; requests that are malformed or beyond the script fail t.
func New(t testing.TB, responses ...Response) *Server {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{}), script: responses, prefix: "/" + rand.Text()[:12]}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.done)
		s.http.Close()
	})
	return s
}

// NewFunc starts a server that answers each request with answer(request): a model that
// reads the conversation it is sent, for tests whose requests cannot be listed in advance
// (a run killed at a random moment and resumed). answer runs on the request's own
// goroutine, possibly concurrently with others. Request.Answer counts the requests so far.
func NewFunc(t testing.TB, answer func(Request) Response) *Server {
	t.Helper()
	s := New(t)
	s.mu.Lock() // a stray request may already be served
	s.answer = answer
	s.mu.Unlock()
	return s
}

// URL returns the base URL to configure a client with; it ends in /v1. Its path starts
// with a random prefix of this server's own: the port of a server that closed may be
// handed to the next one (in any test process), and a client still aiming at the old
// server must not be taken for this one's client (see serve).
func (s *Server) URL() string { return s.http.URL + s.prefix + "/v1" }

// ClientsMayDie says that the clients are killed at random moments on purpose (a crash
// test): a request whose body ends early, its client killed while it wrote it, is logged
// and left unanswered (nobody is there to read an answer) instead of failing the test.
func (s *Server) ClientsMayDie() { s.mayDie.Store(true) }

// Cut counts the requests let go under ClientsMayDie.
func (s *Server) Cut() int { return int(s.cut.Load()) }

// AllowUnknownTools says the script calls a tool the run does not offer on purpose. Without
// it, a request that carries the agent's answer to such a call ("no tool named X") fails
// the test: a scripted call of a tool the agent left out would otherwise run as an error
// step that nobody asked for.
func (s *Server) AllowUnknownTools() { s.unknown.Store(true) }

// unknownTool is how the agent answers a call of a tool it does not offer (agent/batch.go).
var unknownTool = []byte("no tool named ")

// checkTools fails the test, once, when raw carries the answer to a call of a tool the
// run does not offer and the test did not say it may (AllowUnknownTools).
func (s *Server) checkTools(n int, raw []byte) {
	i := bytes.Index(raw, unknownTool)
	if i < 0 || s.unknown.Load() || s.unknownSeen.Swap(true) {
		return
	}
	s.t.Errorf("scripted: request %d answers a call of a tool the run does not offer (%.80s...); "+
		"call a tool it offers, or call AllowUnknownTools if the test means it", n+1, raw[i:])
}

// Strays counts the requests that came without this server's prefix: another server's
// clients, on a reused port. They are answered 404 and neither recorded nor failed.
func (s *Server) Strays() int { return int(s.strays.Load()) }

// WaitRequests blocks until the server has received at least n requests and reports
// whether it has; false means ctx ended first. A request is recorded before its response
// starts, so whatever the client shows of response n-1 comes after this returns.
func (s *Server) WaitRequests(ctx context.Context, n int) bool {
	for {
		s.mu.Lock()
		if len(s.reqs) >= n {
			s.mu.Unlock()
			return true
		}
		if s.arrived == nil {
			s.arrived = make(chan struct{})
		}
		arrived := s.arrived
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return false
		}
	}
}

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path, ours := strings.CutPrefix(r.URL.Path, s.prefix)
	if !ours || (path != "" && path[0] != '/') {
		// A client of a server that had this port before: not this test's business. A
		// client under test that lost the base URL's path fails its own run on the 404.
		s.strays.Add(1)
		s.t.Logf("scripted: ignored a stray request (%s %s, Host %s, User-Agent %q): not under this server's prefix %s",
			r.Method, r.URL.Path, r.Host, r.UserAgent(), s.prefix)
		http.Error(w, "scripted: not a request for this server", http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil && s.mayDie.Load() {
		s.t.Logf("scripted: a request's body ended early (%v): its client was killed while it wrote it", err)
		s.cut.Add(1)
		return
	}
	req := Request{Method: r.Method, Path: path, Header: r.Header.Clone(), Raw: raw, Answer: -1}
	_ = json.Unmarshal(raw, &req.Body)
	code := 0
	switch {
	case err != nil:
		code, req.Problem = http.StatusBadRequest, fmt.Sprintf("reading body: %v", err)
	case r.Method != http.MethodPost:
		code, req.Problem = http.StatusMethodNotAllowed, "method "+r.Method+", want POST"
	case path != chatPath && dialectOf(path) == nil:
		code, req.Problem = http.StatusNotFound, "path "+path+", want one of "+modelPaths()
	case req.Body == nil:
		code, req.Problem = http.StatusBadRequest, "body is not a JSON object"
	}

	var resp Response
	s.mu.Lock()
	answer := s.answer
	s.mu.Unlock()
	if code == 0 && answer != nil {
		resp = answer(req)
	}
	s.mu.Lock()
	n := len(s.reqs)
	if code == 0 && s.answer != nil {
		req.Answer = n
	} else if code == 0 {
		resp, req.Answer = s.pick()
		if req.Answer < 0 {
			code, req.Problem = http.StatusInternalServerError,
				fmt.Sprintf("script ran out: request %d came after all %d responses were used", s.next, len(s.script))
		}
	}
	s.reqs = append(s.reqs, req)
	if s.arrived != nil {
		close(s.arrived)
		s.arrived = nil
	}
	s.mu.Unlock()

	if code == 0 {
		s.checkTools(n, raw)
	}
	if code != 0 {
		s.t.Errorf("scripted: request %d (%s %s, User-Agent %q): %s", n+1, r.Method, path, r.UserAgent(), req.Problem)
		resp = Status(code, ErrorBody("scripted_error", "scripted: "+req.Problem))
	}
	if d := dialectOf(path); d != nil && d.render != nil {
		resp = d.render(resp)
	}
	s.play(w, r, resp)
}

// pick takes the next response; callers hold s.mu.
func (s *Server) pick() (Response, int) {
	i := s.next
	s.next++
	if i < len(s.script) {
		return s.script[i], i
	}
	if last := len(s.script) - 1; last >= 0 && s.script[last].forever {
		return s.script[last], last
	}
	return Response{}, -1
}

func (s *Server) play(w http.ResponseWriter, r *http.Request, resp Response) {
	if resp.delay > 0 && !s.wait(r, resp.delay) {
		return
	}
	for k, v := range resp.header {
		w.Header()[k] = append([]string(nil), v...)
	}
	w.WriteHeader(resp.Code())
	rc := http.NewResponseController(w)
	flush := func() { _ = rc.Flush() }
	// body is where the steps write: the response writer, or for another protocol the
	// translation of the chat-completions stream into its events.
	var body io.Writer = w
	var translating *responsesWriter
	if d := dialectOf(strings.TrimPrefix(r.URL.Path, s.prefix)); d != nil && d.stream != nil && resp.streamed() {
		translating = d.stream(w)
		body = translating
	}
	for _, st := range resp.steps {
		switch st.kind {
		case stepWrite:
			if _, err := body.Write(st.data); err != nil {
				return // the client went away
			}
			if resp.streamed() {
				flush() // each event leaves at once, as from a real provider
			}
		case stepSleep:
			flush()
			if !s.wait(r, st.d) {
				return
			}
		case stepCut:
			flush()
			panic(http.ErrAbortHandler) // net/http closes the connection mid-body, silently
		case stepHang:
			flush()
			s.wait(r, -1)
			return
		case stepEnd:
			return
		case stepComments:
			// Whole lines only, so the next event starts on a line of its own.
			line := int64(len(": keep-alive\n\n"))
			for left := (st.n + line - 1) / line * line; left > 0; {
				piece := commentLine[:min(int64(len(commentLine)), left)]
				if _, err := io.WriteString(body, piece); err != nil {
					return
				}
				left -= int64(len(piece))
			}
			flush()
		case stepFlood:
			for sent := int64(0); st.n < 0 || sent < st.n; sent += st.per {
				err := error(nil)
				if translating != nil {
					err = translating.flood(st.per)
				} else {
					err = writeFlood(w, st.data, st.per)
				}
				if err != nil {
					return
				}
			}
			flush()
			if st.n < 0 {
				return
			}
		case stepKeepAlive:
			for {
				if _, err := io.WriteString(body, ": keep-alive\n\n"); err != nil {
					return
				}
				flush()
				if !s.wait(r, st.d) {
					return
				}
			}
		}
	}
}

// wait pauses for d (forever if d < 0) and reports whether to go on: false when
// the client went away or the server is closing.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}
