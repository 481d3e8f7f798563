package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const fetchTestPage = `<!DOCTYPE html>
<html><head><title>Widget   Guide</title>
<style>body { color: red }</style>
<script>var tracking = "do not show";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Installing widgets</h1>
<p>Widgets are <b>small</b> and
   <a href="https://example.com/more">easy to install</a>.</p>
<noscript>Enable JavaScript</noscript>
<h2>Steps</h2>
<ol><li>Download the <code>widget</code> package.</li><li>Run it.</li></ol>
<ul><li>Fast<ul><li>Really fast</li></ul></li><li>Cheap</li></ul>
<pre>go install example.com/widget@latest
widget --help</pre>
<table><tr><th>Name</th><th>Size</th></tr><tr><td>mini</td><td>1</td></tr></table>
<div hidden>secret banner</div>
<p>Done&nbsp;now.</p>
</body></html>`

const fetchTestText = `# Installing widgets

Widgets are small and [easy to install](https://example.com/more).

## Steps

1. Download the ` + "`widget`" + ` package.
2. Run it.

- Fast
  - Really fast
- Cheap

` + "```" + `
go install example.com/widget@latest
widget --help
` + "```" + `

Name | Size
mini | 1

Done now.`

func fetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(fetchTestPage))
	})
	mux.HandleFunc("/main", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><header>Site header</header><main><h1>Doc</h1><p>Body text.</p></main><footer>Footer</footer></body></html>`))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("line one\n  <b>not html</b>\n"))
	})
	mux.HandleFunc("/readme.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Title\n\n* item\n"))
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok": true, "items": [1, 2]}`))
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0, 1, 2, 3})
	})
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write([]byte("%PDF-1.7"))
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no header: the tool sniffs
		_, _ = w.Write([]byte("just some text without a type"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error": "no such page"}`))
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusBadGateway)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/plain", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><script>x()</script></body></html>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchURL(t *testing.T) {
	srv := fetchServer(t)
	fetch := NewFetchURL(Env{HTTPClient: srv.Client()})
	tests := []struct {
		name    string
		path    string
		want    string // exact output, or a substring when contains is set
		isError bool
		exact   bool
	}{
		{"html to text", "/page", "# Widget Guide\n\n" + fetchTestText, false, true},
		{"main content only", "/main", "# Doc\n\nBody text.", false, true},
		{"plain verbatim", "/plain", "line one\n  <b>not html</b>\n", false, true},
		{"markdown verbatim", "/readme.md", "# Title\n\n* item\n", false, true},
		{"json verbatim", "/data.json", `{"ok": true, "items": [1, 2]}`, false, true},
		{"sniffed text", "/untyped", "just some text without a type", false, true},
		{"redirect followed", "/moved", "(Redirected to " + srv.URL + "/plain)\n\nline one", false, false},
		{"no readable text", "/empty", "has no readable text", false, false},
		{"image refused", "/image.png", "content type image/png", true, false},
		{"octet stream refused", "/download", "content type application/octet-stream", true, false},
		{"pdf refused", "/doc.pdf", "content type application/pdf", true, false},
		{"not found", "/missing", `HTTP 404 Not Found: {"error": "no such page"}`, true, false},
		{"server error", "/broken", "HTTP 502 Bad Gateway: upstream exploded", true, false},
		{"redirect loop", "/loop", "redirects", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSearchTool(t, fetch, map[string]any{"url": srv.URL + tt.path})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tt.isError, res.Output)
			}
			if tt.exact && res.Output != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", res.Output, tt.want)
			}
			if !tt.exact && !strings.Contains(res.Output, tt.want) {
				t.Errorf("output %q lacks %q", res.Output, tt.want)
			}
		})
	}
}

func TestFetchURLDefaultClientFollowsRedirects(t *testing.T) {
	srv := fetchServer(t)
	res := runSearchTool(t, NewFetchURL(Env{}), map[string]any{"url": srv.URL + "/moved"})
	if res.IsError || !strings.Contains(res.Output, "line one") {
		t.Errorf("got %+v", res)
	}
}

func TestFetchURLRejectsOtherSchemes(t *testing.T) {
	fetch := NewFetchURL(Env{})
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "example.com/page", "", "http://"} {
		res := runSearchTool(t, fetch, map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Output, "http") {
			t.Errorf("%q: got %+v, want a refusal", u, res)
		}
	}
}

func TestFetchURLTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	f := &fetcher{client: srv.Client(), timeout: 50 * time.Millisecond}
	tool := New("FetchURL", fetchDescription, fetchFacts, f.run)
	res, err := tool.Run(context.Background(), json.RawMessage(`{"url":"`+srv.URL+`/slow"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Output, "timed out") {
		t.Errorf("got %+v, want a timeout error", res)
	}
}

func TestFetchURLCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := NewFetchURL(Env{HTTPClient: srv.Client()}).Run(ctx, json.RawMessage(`{"url":"`+srv.URL+`"}`))
	if err != nil || !res.IsError {
		t.Errorf("got %+v, %v; want an error result", res, err)
	}
}

func TestFetchURLKeepsLinks(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/docs/guide/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><main>
<p>See <a href="install.html">the  install
  guide</a>, the <a href="/api">API</a>, <a href="../faq?q=1#top">FAQ</a> and
<a href="https://example.org/x">elsewhere</a>.</p>
<p><a href="#usage">Usage</a> <a href="mailto:team@example.com">mail us</a>
<a href="javascript:void(0)">click</a> <a href="/logo"><img alt="logo" src="/logo.png"></a>
<a href="/wiki/Go_(language)">Go</a> <a href="/x"><code>x()</code></a></p>
<pre>see <a href="/inside-pre">this</a></pre>
</main></body></html>`))
	})
	mux.HandleFunc("/old-docs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs/guide/", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/based", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><head><base href="https://cdn.example.com/v2/"></head><body><p><a href="page.html">Page</a></p></body></html>`))
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`<html><body><p>Nothing here. Go <a href="/">home</a>.</p></body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	fetch := NewFetchURL(Env{HTTPClient: srv.Client()})

	wantPage := "See [the install guide](" + srv.URL + "/docs/guide/install.html), the [API](" + srv.URL + "/api), " +
		"[FAQ](" + srv.URL + "/docs/faq?q=1#top) and [elsewhere](https://example.org/x).\n\n" +
		"Usage mail us click [Go](" + srv.URL + "/wiki/Go_%28language%29) [`x()`](" + srv.URL + "/x)\n\n" +
		"```\nsee this\n```"
	tests := []struct{ path, want string }{
		{"/docs/guide/", wantPage},
		// Relative links resolve against the page the redirect ended on.
		{"/old-docs", "(Redirected to " + srv.URL + "/docs/guide/)\n\n" + wantPage},
		{"/based", "[Page](https://cdn.example.com/v2/page.html)"},
	}
	for _, tt := range tests {
		res := runSearchTool(t, fetch, map[string]any{"url": srv.URL + tt.path})
		if res.IsError || res.Output != tt.want {
			t.Errorf("%s: got:\n%s\nwant:\n%s", tt.path, res.Output, tt.want)
		}
	}
	// An error page is summarised in one line, without link targets.
	res := runSearchTool(t, fetch, map[string]any{"url": srv.URL + "/gone"})
	if !res.IsError || !strings.HasSuffix(res.Output, ": Nothing here. Go home.") {
		t.Errorf("error page: got %+v", res)
	}
}
