package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	fetchTimeout      = 30 * time.Second
	fetchMaxBytes     = 5 << 20
	fetchMaxRedirects = 5
	fetchUserAgent    = "Mozilla/5.0 (compatible; kimi-run FetchURL)"
)

const fetchDescription = `Fetch a web page or file over HTTP(S) and return its text. HTML pages are
reduced to their readable text as light Markdown (headings, paragraphs, lists, tables and code
blocks kept; links kept as [text](absolute URL), so you can fetch them next; scripts, styles
and navigation dropped). Plain text, Markdown, JSON, XML and other text formats are returned
as they are. Images, PDFs and other binary content are refused.

Use it to read documentation, issues, API responses or raw files the task refers to.
Only http and https URLs work; requests time out after {fetch_timeout} and pages are cut at {fetch_max}.`

// fetchFacts: a GET from kimi-run's own process, which the sandbox refuses with the network
// cut.
var fetchFacts = Facts{Network: true, ReadOnly: true}

// fetchArgs are the arguments of the FetchURL tool.
type fetchArgs struct {
	URL string `json:"url" description:"absolute http or https URL to fetch"`
}

// NewFetchURL returns the FetchURL tool. It uses env.HTTPClient when set, else a client
// through env.Proxy when that is set, and asks env.Fetch first when a fetch service is
// configured.
//
// Under a proxy (--allow-host) the fetch service is not asked: it would fetch, on its side,
// a host the proxy does not allow.
func NewFetchURL(env Env) Tool {
	f := &fetcher{client: env.HTTPClient, timeout: fetchTimeout, service: env.Fetch}
	if env.Proxy != nil {
		f.service = nil
		if f.client == nil {
			f.client = proxiedFetchClient(env.Proxy)
		}
	}
	return New("FetchURL", fetchDescription, fetchFacts, f.run)
}

// fetcher holds the FetchURL settings; tests shorten the timeout.
type fetcher struct {
	client  *http.Client
	timeout time.Duration
	// service is Moonshot's fetch service, asked before the page itself; nil for none.
	service *Service
}

// fetchServiceTimeout bounds one call to the fetch service, which fetches and extracts the
// page on its side; past it the page is fetched here.
const fetchServiceTimeout = 60 * time.Second

// viaService asks the fetch service for the page's main content as Markdown (Kimi CLI's
// request: POST {"url": …}, Accept: text/markdown). ok is false when it gave none, with why.
func (f *fetcher) viaService(ctx context.Context, u string) (res Result, ok bool, why string) {
	data, cut, err := f.service.post(ctx, map[string]string{"url": u}, "text/markdown", fetchServiceTimeout, fetchMaxBytes)
	if err != nil {
		return Result{}, false, errLine(err)
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if strings.TrimSpace(text) == "" {
		return Result{}, false, "it answered nothing"
	}
	out := text
	if cut {
		out += fmt.Sprintf("\n\n(The page was cut at %d MiB.)", fetchMaxBytes>>20)
	}
	return Text(out).WithKimi("The returned content is the main content extracted from the page.", text), true, ""
}

// defaultFetchClient is shared by all calls; an http.Client is safe for concurrent use.
var defaultFetchClient = &http.Client{CheckRedirect: checkFetchRedirect}

func checkFetchRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= fetchMaxRedirects {
		return fmt.Errorf("stopped after %d redirects", fetchMaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
	}
	return nil
}

func (f *fetcher) run(ctx context.Context, in fetchArgs) (Result, error) {
	raw := strings.TrimSpace(in.URL)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf("FetchURL needs an absolute http:// or https:// URL, got %q", in.URL).
			WithKimi(kimiFetchNetwork(fmt.Sprintf("not an absolute http(s) URL: %q", in.URL)), ""), nil
	}
	note := ""
	if f.service != nil {
		res, ok, why := f.viaService(ctx, u.String())
		if ok {
			return res, nil
		}
		// As in Kimi CLI, a service that fails is no reason to fail the call: the page is
		// fetched here. The model is told, so a page that differs from other fetches is
		// explained.
		note = fmt.Sprintf("(The fetch service failed: %s; the page was fetched directly.)\n\n", why)
	}
	res, err := f.get(ctx, raw, u)
	if note != "" && err == nil {
		res.Output = note + res.Output
	}
	return res, err
}

// get fetches the page itself with a GET.
func (f *fetcher) get(ctx context.Context, raw string, u *url.URL) (Result, error) {
	client := f.client
	if client == nil {
		client = defaultFetchClient
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Errorf("invalid request for %s: %v", raw, err), nil
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")

	resp, err := client.Do(req)
	if res, ok := refusedFetch(raw, resp, err); ok {
		if resp != nil {
			resp.Body.Close()
		}
		return res, nil
	}
	if err != nil {
		return f.failed(ctx, raw, err), nil
	}
	defer resp.Body.Close()

	if resp.StatusCode >= 400 {
		return Errorf("fetching %s failed: HTTP %s%s", raw, resp.Status, errorSnippet(resp)).
			WithKimi(fmt.Sprintf("Failed to fetch URL. Status: %d. This may indicate the page is not accessible or the server is down.", resp.StatusCode), ""), nil
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(resp.Body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return f.failed(ctx, raw, err), nil
	}
	head = head[:n]
	mediaType := contentMediaType(resp.Header.Get("Content-Type"), head)
	isHTML, isText := fetchKind(mediaType)
	if !isHTML && !isText {
		return Errorf("%s has content type %s, which is not text; FetchURL returns only text pages", raw, mediaType).
			WithKimi(kimiFetchNoText, ""), nil
	}
	rest, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes-int64(len(head))+1))
	if err != nil {
		return f.failed(ctx, raw, err), nil
	}
	body := append(head, rest...)
	cut := len(body) > fetchMaxBytes
	if cut {
		body = body[:fetchMaxBytes]
	}

	var text string
	if isHTML {
		text = htmlText(body, resp.Request.URL)
	} else {
		text = strings.ToValidUTF8(string(body), "\uFFFD")
	}
	var b strings.Builder
	if final := resp.Request.URL.String(); final != u.String() {
		fmt.Fprintf(&b, "(Redirected to %s)\n\n", final)
	}
	if strings.TrimSpace(text) == "" {
		fmt.Fprintf(&b, "The page at %s has no readable text.", raw)
		if len(body) == 0 {
			return Text(b.String()).WithKimi("The response body is empty.", ""), nil
		}
		// Kimi calls a page without text an error; here it is a result the model reads, so
		// its line keeps kimi-run's text rather than an error message on a success.
		return Text(b.String()), nil
	}
	b.WriteString(text)
	if cut {
		fmt.Fprintf(&b, "\n\n(The page was cut at %d MiB.)", fetchMaxBytes>>20)
	}
	return Text(b.String()).WithKimi(kimiFetchOK(isHTML), text), nil
}

// Kimi CLI's FetchURL wording (tools/web/fetch.py), for its message lines.
const kimiFetchNoText = "Failed to extract meaningful content from the page. " +
	"This may indicate the page content is not suitable for text extraction, " +
	"or the page requires JavaScript to render its content."

// kimiFetchNetwork words a request that got no answer as Kimi does.
func kimiFetchNetwork(why string) string {
	return "Failed to fetch URL due to network error: " + why +
		". This may indicate the URL is invalid or the server is unreachable."
}

// kimiFetchOK is Kimi's message for a page returned: plain text as it came, or HTML's text.
func kimiFetchOK(isHTML bool) string {
	if isHTML {
		return "The returned content is the main text content extracted from the page."
	}
	return "The returned content is the full content of the page."
}

// failed describes a transport failure, naming the timeout when that was the cause.
func (f *fetcher) failed(ctx context.Context, raw string, err error) Result {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Errorf("fetching %s timed out after %s", raw, f.timeout).
			WithKimi("Failed to fetch URL: request timed out. The server may be slow or unreachable.", "")
	}
	return Errorf("fetching %s failed: %v", raw, err).WithKimi(kimiFetchNetwork(err.Error()), "")
}

// contentMediaType returns the lower-case media type from the header, or sniffed from
// the first bytes when the server sent none.
func contentMediaType(header string, head []byte) string {
	if header == "" {
		header = http.DetectContentType(head)
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		mt, _, _ = strings.Cut(header, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// fetchKind classifies a media type as HTML, other text, or neither.
func fetchKind(mt string) (isHTML, isText bool) {
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return true, false
	case strings.HasPrefix(mt, "text/"):
		return false, true
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return false, false
	case strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return false, true
	}
	switch mt {
	case "application/json", "application/x-ndjson", "application/xml", "application/javascript",
		"application/x-javascript", "application/ecmascript", "application/yaml", "application/x-yaml",
		"application/toml", "application/x-sh", "application/sql", "application/graphql":
		return false, true
	}
	return false, false
}

// errorSnippet returns the start of an error response's body as readable text, so the
// model sees messages such as "rate limit exceeded".
func errorSnippet(resp *http.Response) string {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	isHTML, isText := fetchKind(contentMediaType(resp.Header.Get("Content-Type"), data))
	var text string
	switch {
	case isHTML:
		text = htmlText(data, nil)
	case isText:
		text = string(bytes.ToValidUTF8(data, []byte("\uFFFD")))
	default:
		return ""
	}
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return ""
	}
	if len(text) > 300 {
		i := 300
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		text = text[:i] + "..."
	}
	return ": " + text
}
