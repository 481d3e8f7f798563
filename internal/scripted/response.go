package scripted

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Response is the scripted answer to one request: a status, headers and a body
// played as a sequence of steps (writes, pauses, a dropped connection, ...).
// Its methods return adjusted copies, so one Response can be reused.
type Response struct {
	status  int
	header  http.Header
	delay   time.Duration // before the status line is sent
	steps   []step
	forever bool
}

type stepKind int

const (
	stepWrite     stepKind = iota // write data (flushed at once for event streams)
	stepSleep                     // flush, then pause for d
	stepCut                       // flush, then drop the connection without ending the body
	stepHang                      // flush, then send nothing until the client goes away
	stepEnd                       // end the body cleanly right here
	stepKeepAlive                 // write a keep-alive every d until the client goes away
	stepComments                  // write n bytes of comment lines as fast as the client reads
	stepFlood                     // write data (one content chunk) until n bytes of content went (n < 0: for ever)
)

type step struct {
	kind stepKind
	data []byte
	d    time.Duration
	n    int64
	per  int64 // stepFlood: the content bytes data carries
}

// Status returns a non-streamed response with the given status code and body.
// The Content-Type is application/json when body is valid JSON, else text/plain.
func Status(code int, body string) Response {
	ct := "text/plain; charset=utf-8"
	if json.Valid([]byte(body)) {
		ct = "application/json"
	}
	return Response{
		status: code,
		header: http.Header{"Content-Type": {ct}},
		steps:  []step{{kind: stepWrite, data: []byte(body)}},
	}
}

// ErrorBody returns an OpenAI-style error document such as providers send with
// 4xx and 5xx statuses: {"error":{"message":...,"type":...}}.
func ErrorBody(typ, message string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ}})
	return string(b)
}

// Header returns a copy of r that sends the header key with value.
func (r Response) Header(key, value string) Response {
	h := r.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(key, value)
	r.header = h
	return r
}

// Forever returns a copy of r that, placed last in a script, answers every
// further request too.
func (r Response) Forever() Response {
	r.forever = true
	return r
}

// DelayHeaders returns a copy of r that waits d before sending the status line,
// to exercise a client's response-header timeout.
func (r Response) DelayHeaders(d time.Duration) Response {
	r.delay = d
	return r
}

// Code reports the HTTP status code r sends.
func (r Response) Code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

func (r Response) streamed() bool {
	return strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream")
}
