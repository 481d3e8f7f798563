package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/kimi-run/kimi-run/internal/hostproxy"
)

// FetchURL under --allow-host: its requests go through the run's proxy, the one commands
// use, so the same list decides; a refusal of the proxy is a denial.

// proxyRefusal is the proxy's refusal of a tunnel (an https:// URL).
type proxyRefusal struct{ text string }

func (e *proxyRefusal) Error() string { return e.text }

// proxiedFetchClient is FetchURL's client through the proxy at u.
func proxiedFetchClient(u *url.URL) *http.Client {
	return &http.Client{
		CheckRedirect: checkFetchRedirect,
		Transport: &http.Transport{
			Proxy: http.ProxyURL(u),
			OnProxyConnectResponse: func(_ context.Context, _ *url.URL, _ *http.Request, res *http.Response) error {
				if res.StatusCode == http.StatusForbidden && res.Header.Get(hostproxy.DeniedHeader) != "" {
					b, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
					return &proxyRefusal{text: strings.TrimSpace(string(b))}
				}
				return nil
			},
		},
	}
}

// refusedFetch is the result of a fetch the proxy refused, given its answer (resp, for an
// http:// URL) or the client's error (a tunnel's); ok false when it was no refusal.
func refusedFetch(raw string, resp *http.Response, err error) (Result, bool) {
	var text string
	var pr *proxyRefusal
	switch {
	case errors.As(err, &pr):
		text = pr.text
	case resp != nil && resp.StatusCode == http.StatusForbidden && resp.Header.Get(hostproxy.DeniedHeader) != "":
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		text = strings.TrimSpace(string(b))
	default:
		return Result{}, false
	}
	msg := fmt.Sprintf("not fetched: %s. The hosts this run may reach are set by the caller; do the task without this one, or say in your final answer what could not be done.", text)
	return Result{Output: msg, IsError: true}.Deny(DeniedBySandbox, "--allow-host"), true
}
