package model

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Streamer is what a hand-written protocol client (one not built on go-openai: the
// protocol packages under model/) shares with chat completions: the transport
// (extra body fields, headers, error answers kept, the SSE filter, the reply cap's line
// bound), the idle watch, and the classification of failures into this package's error
// types. A client builds its request body, opens a stream, reads data payloads and folds
// them into a Reply.
type Streamer struct {
	t    *transport
	idle time.Duration
	max  int64 // MaxReplyBytes
}

// NewStreamer builds the Streamer of cfg's endpoint.
func NewStreamer(cfg Config) *Streamer {
	idle, hc := cfg.network()
	return &Streamer{t: &transport{next: hc, extra: cfg.ExtraBody, headers: cfg.Headers}, idle: idle, max: cfg.MaxReplyBytes}
}

// Stream is one streamed model call.
type Stream struct {
	s      *Streamer
	ctx    context.Context
	cancel context.CancelCauseFunc
	x      *exchange
	timer  *time.Timer
	body   io.ReadCloser
	lines  *bufio.Reader
	// NoProgress, when set, says which payloads are no sign of progress (Anthropic's
	// ping): they do not reset the idle timer, as comments do not.
	NoProgress func(payload []byte) bool
}

// Open posts body to url and returns the stream of its answer. header adds the protocol's
// own headers (its key, its version); the transport adds the configured ones. An error is
// already classified (see Fail).
func (s *Streamer) Open(ctx context.Context, url string, header http.Header, body []byte) (*Stream, error) {
	ctx, x := withExchange(ctx)
	x.size = NewReplyMeter(s.max)
	ctx, cancel := context.WithCancelCause(ctx)
	st := &Stream{s: s, ctx: ctx, cancel: cancel, x: x}
	// The idle timer cancels the call when the server goes silent; every payload resets it.
	st.timer = time.AfterFunc(s.idle, func() { cancel(ErrStreamIdle) })
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		st.Close()
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.t.Do(req)
	if err != nil {
		err = st.Fail(err)
		st.Close()
		return nil, err
	}
	st.body = resp.Body
	if resp.StatusCode >= 400 {
		// The transport kept the status and the body; fail reads them.
		err := st.Fail(&ProviderError{StatusCode: resp.StatusCode, RetryAfter: -1})
		st.Close()
		return nil, err
	}
	st.lines = bufio.NewReaderSize(resp.Body, 32<<10)
	return st, nil
}

// Size is the reply's meter: a decoder adds every piece of content, reasoning and tool
// arguments it keeps.
func (st *Stream) Size() *ReplyMeter { return st.x.size }

// Next returns the next data payload, without its `data:` prefix; io.EOF at the end of
// the body or at `data: [DONE]`. Each payload resets the idle timer (but those NoProgress
// names). Errors are raw: pass
// them to Fail.
func (st *Stream) Next() ([]byte, error) {
	for {
		line, err := st.lines.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err // what came of the line is not all of it
		}
		if len(line) > 0 {
			payload, ok := dataPayload(line)
			switch {
			case !ok:
			case string(payload) == "[DONE]":
				return nil, io.EOF
			default:
				if st.NoProgress == nil || !st.NoProgress(payload) {
					st.timer.Reset(st.s.idle)
				}
				return payload, nil
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// dataPayload is the content of one data line (the filter passes no other kind); ok is
// false for an empty one.
func dataPayload(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(line, " \t"), []byte("data:"))
	if !ok {
		return nil, false
	}
	rest = bytes.TrimRight(bytes.TrimPrefix(rest, []byte(" ")), "\r\n")
	return rest, len(bytes.TrimSpace(rest)) > 0
}

// Plain returns the answer when it came as one JSON document instead of a stream (a
// server that ignored stream:true), or nil.
func (st *Stream) Plain() []byte { return st.x.plainReply() }

// Close ends the call: the body is closed and the idle timer stopped.
func (st *Stream) Close() {
	st.timer.Stop()
	if st.body != nil {
		st.body.Close()
	}
	st.cancel(nil)
}

// Fail classifies an error of the call, as the chat-completions client does: a silent
// stream is ErrStreamIdle; a cancelled run stays cancelled; an error answer or an error
// document found in the stream becomes a ProviderError, with the wait the provider asked
// for; any other failure after the stream began is a cut reply (ErrIncompleteStream).
func (st *Stream) Fail(err error) error {
	if st.body != nil {
		err = midStream(err)
	}
	return st.Classify(err)
}

// Classify classifies an error found after the stream ended (an error document a decoder
// read): a ProviderError gets the wait the provider asked for.
func (st *Stream) Classify(err error) error { return classify(st.ctx, st.x, st.s.idle, err) }

// StreamError is the error document the transport found in the body outside the data
// lines (a bare JSON object), or nil.
func (st *Stream) StreamError() []byte { return st.x.streamError() }

// SetMeter has the call count against m (a reply that spans calls, one cap for the whole).
func (st *Stream) SetMeter(m *ReplyMeter) { st.x.size = m }

// classify is what every client does with a failed call (see stream.fail).
func classify(ctx context.Context, x *exchange, idle time.Duration, err error) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrStreamIdle) {
		return fmt.Errorf("%w after %s", ErrStreamIdle, idle)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if status, body := x.errorAnswer(); status != 0 {
		err = ProviderErrorOf(status, body, err)
	} else if doc := x.streamError(); doc != nil {
		err = ProviderErrorOf(0, doc, err)
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		if ms := x.ms.Load(); ms >= 0 {
			pe.RetryAfter = ms
		}
	}
	return err
}

// Endpoint joins a base URL and a path ("/responses") the way OpenAI's clients do: the
// base URL usually ends in /v1.
func Endpoint(base, path string) string {
	return strings.TrimRight(base, "/") + path
}
