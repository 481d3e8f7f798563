package model_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
)

// connCounter is a chat-completions server that answers "ok" and keeps what happened to
// its connections.
type connCounter struct {
	srv    *httptest.Server
	mu     sync.Mutex
	opened int
	closed int
	reqs   int
}

func newConnCounter(t *testing.T) *connCounter {
	c := &connCounter{}
	c.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.reqs++
		c.mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	c.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch s {
		case http.StateNew:
			c.opened++
		case http.StateClosed, http.StateHijacked:
			c.closed++
		}
	}
	c.srv.Start()
	t.Cleanup(c.srv.Close)
	return c
}

func (c *connCounter) counts() (opened, closed, reqs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened, c.closed, c.reqs
}

// ask makes one model call through a client that takes p.
func ask(t *testing.T, base string, p *model.Predial) (model.Reply, error) {
	t.Helper()
	m := model.NewOpenAI(model.Config{BaseURL: base + "/v1", APIKey: "k", Model: "m", IdleTimeout: time.Minute, Predial: p})
	return m.Stream(t.Context(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}, model.Handler{})
}

// eventually waits (bounded) until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The first request goes over the connection opened ahead of it: the server sees one
// connection for the dial and the request together (issue 31).
func TestPredialCarriesTheFirstRequest(t *testing.T) {
	c := newConnCounter(t)
	p := model.StartPredial(t.Context(), c.srv.URL+"/v1")
	if p == nil {
		t.Fatal("no early dial to a local http URL")
	}
	eventually(t, "the early dial never reached the server", func() bool { o, _, _ := c.counts(); return o == 1 })
	reply, err := ask(t, c.srv.URL, p)
	if err != nil || reply.Text != "ok" {
		t.Fatalf("reply %q, %v", reply.Text, err)
	}
	if opened, _, reqs := c.counts(); opened != 1 || reqs != 1 {
		t.Errorf("%d connections for %d requests, want the early one to carry the request", opened, reqs)
	}
	p.Close() // taken: nothing left to close
}

// An early connection no request took is closed when the run lets it go.
func TestPredialUnusedIsClosed(t *testing.T) {
	c := newConnCounter(t)
	p := model.StartPredial(t.Context(), c.srv.URL)
	eventually(t, "the early dial never reached the server", func() bool { o, _, _ := c.counts(); return o == 1 })
	p.Close()
	eventually(t, "the unused early connection stayed open", func() bool { _, cl, _ := c.counts(); return cl == 1 })
	if _, _, reqs := c.counts(); reqs != 0 {
		t.Errorf("%d requests, want none", reqs)
	}
}

// Requests that a proxy would carry, and URLs without a host, get no early dial.
func TestPredialSkipped(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
	t.Setenv("NO_PROXY", "")
	for _, u := range []string{"https://api.example.com/v1", "unix:///tmp/x", "", "http://"} {
		if p := model.StartPredial(t.Context(), u); p != nil {
			p.Close()
			t.Errorf("StartPredial(%q) dialled", u)
		}
	}
}
