package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// transport sits between go-openai and the network. It merges provider-specific fields into
// request bodies (go-openai has no extra_body) and records what go-openai drops or cannot
// read where the client can find it: the Retry-After wait and the HTTP status and body of
// error answers (go-openai loses the status when the body is not OpenAI's shape), and an
// error object inside a successful stream.
type transport struct {
	next *http.Client
	// extra holds top-level JSON fields merged into every POST body, e.g. Kimi's
	// "thinking" switch. Values are kept raw so numbers are not re-encoded.
	extra map[string]json.RawMessage
	// headers are added to every request.
	headers map[string]string
}

type exchangeKey struct{}

// exchange carries what the HTTP layer saw of one model call out to the client.
type exchange struct {
	// ms is the wait the provider asked for, in milliseconds; -1 when none.
	ms atomic.Int64

	mu sync.Mutex
	// status and body are those of an error answer (status >= 400); status is 0 otherwise.
	status int
	body   []byte
	// streamErr is the first error document found inside a successful stream.
	streamErr []byte
	// plain is a successful answer that was one JSON document, not an event stream: a
	// server that ignored stream:true sent the whole reply at once.
	plain []byte
	// done: the stream sent its end mark, `data: [DONE]`.
	done bool
	// size counts the reply; the stream filter bounds one line by it.
	size *ReplyMeter
	// msgExtra are fields to add to messages of the request body, by index (see
	// OpenAI.request); set before the request is sent.
	msgExtra map[int]map[string]json.RawMessage
	// tools is the request's tools, encoded, for the transport to put in the body where
	// OpenAI.request left their mark (toolDefs); nil when it sends none.
	tools []byte
}

func withExchange(ctx context.Context) (context.Context, *exchange) {
	x := &exchange{}
	x.ms.Store(-1)
	return context.WithValue(ctx, exchangeKey{}, x), x
}

// errorAnswer returns the status and body of an error answer; status is 0 when there was none.
func (x *exchange) errorAnswer() (int, []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.status, x.body
}

// streamError returns the error document found in the stream, or nil.
func (x *exchange) streamError() []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.streamErr
}

// plainReply returns the answer sent as one JSON document, or nil.
func (x *exchange) plainReply() []byte {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.plain
}

// sawDone reports whether the stream sent `data: [DONE]`.
func (x *exchange) sawDone() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.done
}

// maxErrorBody bounds what is kept of an error answer's body.
const maxErrorBody = 64 << 10

func (t *transport) Do(req *http.Request) (*http.Response, error) {
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	x, ok := req.Context().Value(exchangeKey{}).(*exchange)
	var msgExtra map[int]map[string]json.RawMessage
	if ok {
		msgExtra = x.msgExtra
		if x.tools != nil && req.Body != nil {
			if err := putTools(req, x.tools); err != nil {
				return nil, err
			}
		}
	}
	if (len(t.extra) > 0 || len(msgExtra) > 0) && req.Method == http.MethodPost && req.Body != nil {
		if err := t.mergeBody(req, msgExtra); err != nil {
			return nil, err
		}
	}
	resp, err := t.next.Do(req)
	if err != nil {
		return nil, err
	}
	if !ok {
		return resp, nil
	}
	if resp.StatusCode >= 400 {
		if d, ok := parseRetryAfter(resp.Header, time.Now()); ok {
			x.ms.Store(d.Milliseconds())
		}
		// Keep the body for the error and hand go-openai the same bytes.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		x.mu.Lock()
		x.status, x.body = resp.StatusCode, body
		x.mu.Unlock()
		resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(body), resp.Body), Closer: resp.Body}
		return resp, nil
	}
	if isWebPage(resp.Header.Get("Content-Type")) {
		// A website answered: a stream parser would wait for data lines that never come
		// and then call it a cut stream, which is retried. Say what is wrong instead.
		resp.Body.Close()
		u := *req.URL
		u.RawQuery, u.User, u.Fragment = "", nil, ""
		return nil, &EndpointError{URL: u.String(), ContentType: resp.Header.Get("Content-Type")}
	}
	resp.Body = &sseFilter{body: resp.Body, x: x}
	return resp, nil
}

// isWebPage reports whether a content type is an HTML page.
func isWebPage(ct string) bool {
	ct = strings.ToLower(strings.TrimSpace(ct))
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

type readCloser struct {
	io.Reader
	io.Closer
}

// mergeBody adds the configured top-level fields and the per-message fields to a JSON
// request body.
func (t *transport) mergeBody(req *http.Request, msgExtra map[int]map[string]json.RawMessage) error {
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
	if len(msgExtra) > 0 {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(fields["messages"], &msgs); err != nil {
			return fmt.Errorf("decode request messages: %w", err)
		}
		for i, extra := range msgExtra {
			if i < 0 || i >= len(msgs) {
				continue
			}
			for k, v := range extra {
				msgs[i][k] = v
			}
		}
		raw, err := json.Marshal(msgs)
		if err != nil {
			return fmt.Errorf("encode request messages: %w", err)
		}
		fields["messages"] = raw
	}
	merged, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encode request body: %w", err)
	}
	setBody(req, merged)
	return nil
}

// putTools puts the encoded tools in a request body in place of their mark (toolDefs).
func putTools(req *http.Request, tools []byte) error {
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	i := bytes.Index(raw, toolsMarkJSON)
	if i < 0 {
		return errors.New("encode request body: the tools' mark is missing")
	}
	body := make([]byte, 0, len(raw)+len(tools))
	body = append(append(append(body, raw[:i]...), `"tools":`...), tools...)
	setBody(req, append(body, raw[i+len(toolsMarkJSON):]...))
	return nil
}

func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
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
