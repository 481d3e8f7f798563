package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// doer is the HTTP client shape go-openai accepts.
type doer interface {
	Do(*http.Request) (*http.Response, error)
}

// transport sits between go-openai and the network. It merges provider-specific fields into
// request bodies (go-openai has no extra_body) and records the Retry-After wait of error
// answers, which go-openai drops, where the retry policy can read it.
type transport struct {
	next doer
	// extra holds top-level JSON fields merged into every POST body, e.g. Kimi's
	// "thinking" switch. Values are kept raw so numbers are not re-encoded.
	extra map[string]json.RawMessage
	// headers are added to every request.
	headers map[string]string
}

type retryAfterKey struct{}

// retryAfterHolder carries the wait a provider asked for out of the HTTP layer.
type retryAfterHolder struct{ ms atomic.Int64 }

func withRetryAfter(ctx context.Context) (context.Context, *retryAfterHolder) {
	h := &retryAfterHolder{}
	h.ms.Store(-1)
	return context.WithValue(ctx, retryAfterKey{}, h), h
}

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if len(t.extra) > 0 && req.Method == http.MethodPost && req.Body != nil {
		if err := t.mergeBody(req); err != nil {
			return nil, err
		}
	}
	resp, err := t.next.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		if h, ok := req.Context().Value(retryAfterKey{}).(*retryAfterHolder); ok {
			if d, ok := parseRetryAfter(resp.Header, time.Now()); ok {
				h.ms.Store(d.Milliseconds())
			}
		}
	}
	return resp, nil
}

func (t *transport) mergeBody(req *http.Request) error {
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("decode request body: %w", err)
	}
	for k, v := range t.extra {
		fields[k] = v
	}
	merged, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encode request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(merged))
	req.ContentLength = int64(len(merged))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(merged)), nil }
	return nil
}

// parseRetryAfter reads retry-after-ms, then Retry-After (seconds or an HTTP date).
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		d := at.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
