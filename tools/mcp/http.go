package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the SDK transport for an HTTP or SSE server, sending the configured
// headers with every request.
func httpTransport(s Server, base *http.Client) sdk.Transport {
	rt := http.DefaultTransport
	if base != nil && base.Transport != nil {
		rt = base.Transport
	}
	// No Client.Timeout: it would cut the long-lived event streams. Start-up and calls are
	// bounded by their contexts instead.
	client := &http.Client{Transport: &headerTransport{base: rt, headers: s.Headers}}
	if s.Transport == SSE {
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: client}
	}
	return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client}
}

// headerTransport adds fixed headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if lost, ok := r.Context().Value(linkKey{}).(context.CancelCauseFunc); ok {
		switch {
		case err == nil:
			resp.Body = &watchedBody{ReadCloser: resp.Body, lost: lost}
		case r.Context().Err() == nil:
			lost(fmt.Errorf("%w: %w", errLinkLost, err))
		}
	}
	return resp, err
}

// errLinkLost is the cause of a call whose reply stream broke: the server went away in
// the middle of its answer. The SDK gives up such a stream without failing the call when
// it has no event id to resume from (the call would wait out its timeout), or retries it
// for many seconds; the call fails at once instead.
var errLinkLost = errors.New("the connection broke during the call")

// linkKey marks a tool call's context with the function that fails it when its reply
// stream breaks.
type linkKey struct{}

// watchedBody is a call's reply stream, which fails the call when it breaks (anything
// but its clean end or the call's own cancellation).
type watchedBody struct {
	io.ReadCloser
	lost context.CancelCauseFunc
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		b.lost(fmt.Errorf("%w: %w", errLinkLost, err))
	}
	return n, err
}

// scrubURL removes the configured URL's credentials and query (where tokens sometimes sit)
// from an error message, which Go's HTTP errors quote in full.
func scrubURL(err error, raw string) error {
	if err == nil || raw == "" {
		return err
	}
	u, perr := url.Parse(raw)
	if perr != nil {
		return err
	}
	if u.User == nil && u.RawQuery == "" && u.Fragment == "" {
		return err
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	msg := err.Error()
	if !strings.Contains(msg, raw) {
		return err
	}
	return errors.New(strings.ReplaceAll(msg, raw, u.String()))
}
