package mcp

import (
	"net/http"

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
