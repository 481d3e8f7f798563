package mcp

import (
	"errors"
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
	return t.base.RoundTrip(r)
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
