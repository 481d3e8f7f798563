package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeService is a local stand-in for one of Moonshot's web services: it records each
// request and answers with the handler's reply.
type fakeService struct {
	*httptest.Server
	requests chan *http.Request
	bodies   chan []byte
}

func newFakeService(t *testing.T, reply http.HandlerFunc) *fakeService {
	t.Helper()
	f := &fakeService{requests: make(chan *http.Request, 10), bodies: make(chan []byte, 10)}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.requests <- r
		f.bodies <- body
		reply(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// last is the request the service received and its JSON body.
func (f *fakeService) last(t *testing.T) (*http.Request, map[string]any) {
	t.Helper()
	select {
	case r := <-f.requests:
		var body map[string]any
		if err := json.Unmarshal(<-f.bodies, &body); err != nil {
			t.Fatalf("the request body is not JSON: %v", err)
		}
		return r, body
	default:
		t.Fatal("the service got no request")
		return nil, nil
	}
}

// TestSearchWeb: SearchWeb posts Kimi CLI's request to the search service (text_query,
// limit, enable_page_crawling, timeout_seconds; the tool call's id in X-Msh-Tool-Call-Id;
// the configured headers) and gives the model each result's title, address, site, date,
// summary and, when asked, content.
func TestSearchWeb(t *testing.T) {
	answer := `{"search_results":[
		{"site_name":"Go","title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","snippet":"Go 1.26 arrives six months after 1.25.","content":"The latest Go release.","date":"2026-02-10","icon":"","mime":"text/html"},
		{"site_name":"blog","title":"What's new\nin Go","url":"https://example.com/go","snippet":"A tour.","date":""}]}`
	svc := newFakeService(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, answer) })
	tool := NewSearchWeb(Env{Search: &Service{URL: svc.URL + "/search", Headers: map[string]string{"X-Custom-Header": "custom-value"}}})

	raw, _ := json.Marshal(map[string]any{"query": "go 1.26 release notes", "limit": 2, "include_content": true})
	res, err := tool.Run(WithCallID(context.Background(), "call-7"), raw)
	if err != nil || res.IsError {
		t.Fatalf("err %v, result %+v", err, res)
	}
	req, body := svc.last(t)
	if req.Method != http.MethodPost || req.URL.Path != "/search" || req.Header.Get("X-Msh-Tool-Call-Id") != "call-7" ||
		req.Header.Get("X-Custom-Header") != "custom-value" || req.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %s %s, headers %v", req.Method, req.URL.Path, req.Header)
	}
	want := map[string]any{"text_query": "go 1.26 release notes", "limit": 2.0, "enable_page_crawling": true, "timeout_seconds": 30.0}
	if got, _ := json.Marshal(body); string(got) != mustJSON(want) {
		t.Errorf("body %s, want %s", got, mustJSON(want))
	}
	for _, part := range []string{
		"1. Go 1.26 Release Notes\nURL: https://go.dev/doc/go1.26\nSite: Go\nDate: 2026-02-10\nSummary: Go 1.26 arrives six months after 1.25.\n\nThe latest Go release.\n",
		"\n---\n\n2. What's new in Go\nURL: https://example.com/go\nSite: blog\nSummary: A tour.\n",
	} {
		if !strings.Contains(res.Output, part) {
			t.Errorf("output lacks %q:\n%s", part, res.Output)
		}
	}

	// The defaults: five results, no page content.
	runSearchTool(t, tool, map[string]any{"query": "x"})
	if _, body := svc.last(t); body["limit"] != 5.0 || body["enable_page_crawling"] != false {
		t.Errorf("default body %v", body)
	}
}

// TestSearchWebFailures: what the service does wrong is an error result the model can act
// on (Kimi's words in Kimi's message lines), never a failed run: an error status, an
// answer that is not a list of results, no answer in time, no service at all; and the
// arguments Kimi CLI refuses are refused before anything is sent.
func TestSearchWebFailures(t *testing.T) {
	status := newFakeService(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	garbage := newFakeService(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>login</html>") })
	slow := newFakeService(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	for _, tt := range []struct {
		name    string
		svc     *Service
		args    map[string]any
		ctx     time.Duration
		output  string
		kimi    string
		nothing bool // no request may reach the service
	}{
		{name: "error status", svc: &Service{URL: status.URL}, args: map[string]any{"query": "q"},
			output: "HTTP 503 Service Unavailable: overloaded", kimi: "Failed to search. Status: 503. This may indicate that the search service is currently unavailable."},
		{name: "not results", svc: &Service{URL: garbage.URL}, args: map[string]any{"query": "q"},
			output: "not a list of results", kimi: "Failed to parse search results."},
		{name: "no answer in time", svc: &Service{URL: slow.URL}, args: map[string]any{"query": "q"}, ctx: 50 * time.Millisecond,
			output: "timed out", kimi: "Search request timed out. The search service may be slow or unavailable."},
		{name: "unreachable", svc: &Service{URL: "http://127.0.0.1:1/search"}, args: map[string]any{"query": "q"},
			output: "cannot be reached", kimi: "Search request failed:"},
		{name: "no service", args: map[string]any{"query": "q"},
			output: "no search service is configured", kimi: "Search service is not configured."},
		{name: "empty query", svc: &Service{URL: status.URL}, args: map[string]any{"query": "  "}, output: "query is empty", nothing: true},
		{name: "limit too large", svc: &Service{URL: status.URL}, args: map[string]any{"query": "q", "limit": 21}, output: "limit must be 1 to 20", nothing: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctx)
				defer cancel()
			}
			raw, _ := json.Marshal(tt.args)
			before := len(status.requests)
			res, err := NewSearchWeb(Env{Search: tt.svc}).Run(ctx, raw)
			if err != nil || !res.IsError || !strings.Contains(res.Output, tt.output) {
				t.Fatalf("err %v, result %+v; want an error result with %q", err, res, tt.output)
			}
			if tt.kimi != "" && (res.Kimi == nil || !strings.HasPrefix(res.Kimi.Message, tt.kimi)) {
				t.Errorf("Kimi message %+v, want it to start %q", res.Kimi, tt.kimi)
			}
			if tt.nothing && len(status.requests) != before {
				t.Error("a refused call reached the service")
			}
		})
	}
}

// TestFetchURLWithService re-expresses Kimi CLI's test_fetch_url_with_service
// (tests/tools/test_fetch_url.py, v1.49): with a fetch service configured, FetchURL POSTs
// {"url": …} to it with Accept: text/markdown and the configured headers, and returns what it
// answers as the page, with Kimi's message. A service that fails is no failure: the page is
// fetched directly, and the model is told.
func TestFetchURLWithService(t *testing.T) {
	const content = "# Service Content\n\nThis content was fetched via the service."
	svc := newFakeService(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, content) })
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "the page itself")
	}))
	defer page.Close()
	tool := NewFetchURL(Env{Fetch: &Service{URL: svc.URL + "/fetch", Headers: map[string]string{"X-Custom-Header": "custom-value"}}})

	raw, _ := json.Marshal(map[string]any{"url": "https://example.com"})
	res, err := tool.Run(WithCallID(context.Background(), "test-call-id"), raw)
	if err != nil || res.IsError || res.Output != content {
		t.Fatalf("err %v, result %+v", err, res)
	}
	if res.Kimi == nil || res.Kimi.Message != "The returned content is the main content extracted from the page." || res.Kimi.Output != content {
		t.Errorf("Kimi text %+v", res.Kimi)
	}
	req, body := svc.last(t)
	if req.Method != http.MethodPost || req.Header.Get("Accept") != "text/markdown" || req.Header.Get("X-Custom-Header") != "custom-value" ||
		req.Header.Get("X-Msh-Tool-Call-Id") != "test-call-id" || body["url"] != "https://example.com" || len(body) != 1 {
		t.Errorf("service request %s, headers %v, body %v", req.Method, req.Header, body)
	}

	for _, tt := range []struct {
		name string
		svc  *Service
		why  string
	}{
		{"service error", &Service{URL: newFakeService(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }).URL}, "HTTP 502 Bad Gateway"},
		{"service empty", &Service{URL: newFakeService(t, func(w http.ResponseWriter, r *http.Request) {}).URL}, "it answered nothing"},
		{"service unreachable", &Service{URL: "http://127.0.0.1:1/fetch"}, "connect"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, NewFetchURL(Env{Fetch: tt.svc}), map[string]any{"url": page.URL})
			if res.IsError || !strings.HasSuffix(res.Output, "the page itself") || !strings.Contains(res.Output, "(The fetch service failed: ") ||
				!strings.Contains(res.Output, tt.why) {
				t.Errorf("result %+v; want the page fetched directly, the service's failure (%q) noted", res, tt.why)
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Under --allow-host (a proxy decides which hosts the run reaches) FetchURL asks no fetch
// service, which would fetch on its side a host the proxy does not allow: the page goes
// through the proxy.
func TestFetchURLSkipsTheServiceBehindAProxy(t *testing.T) {
	svc := newFakeService(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the service") })
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "through the proxy: "+r.URL.Host)
	}))
	defer proxy.Close()
	u, _ := url.Parse(proxy.URL)
	res := runSearchTool(t, NewFetchURL(Env{Fetch: &Service{URL: svc.URL}, Proxy: u}), map[string]any{"url": "http://docs.example/page"})
	if res.IsError || res.Output != "through the proxy: docs.example" || len(svc.requests) != 0 {
		t.Errorf("result %+v, %d service requests", res, len(svc.requests))
	}
}
