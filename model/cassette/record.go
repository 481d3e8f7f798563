package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/beneath"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// Recorder is an http.RoundTripper that passes every request to Next and writes the
// exchange to a cassette file. Each exchange is written as one line with one write when
// it ends, so a run killed at any moment leaves every finished exchange readable.
type Recorder struct {
	next  http.RoundTripper
	scrub scrubber
	now   func() time.Time

	calls atomic.Int64
	mu    sync.Mutex
	f     *os.File
	err   error // the first write error
}

// Create starts a cassette at path (replacing any file there) and writes its header.
// Secrets are scrubbed from everything recorded: pass the API key and any configured
// header values. next is the transport that talks to the network.
func Create(path string, h Header, next http.RoundTripper, secrets []string) (*Recorder, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		// A FIFO would hold the open until a reader came; a device would swallow the run.
		return nil, &infile.NotRegularError{Path: path, Mode: fi.Mode()}
	}
	// A link at the name is not followed (beneath.ErrLink): one a command planted in the
	// work dir would have the cassette truncate and fill the file it points to.
	f, err := beneath.Open(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	// A log, not a replaced file: a killed run keeps every finished exchange in it. Its
	// directory entry is made durable as the session file's is.
	atomicfile.SyncDir(filepath.Dir(path))
	r := &Recorder{next: next, scrub: newScrubber(secrets), now: time.Now, f: f}
	h.Format = Version
	if h.RecordedAt.IsZero() {
		h.RecordedAt = time.Now().UTC().Truncate(time.Second)
	}
	h.BaseURL = r.scrub.string(h.BaseURL)
	if err := r.writeLine(h); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Close flushes the cassette to disk and reports the first error met writing it.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	if err := r.f.Sync(); err != nil && r.err == nil {
		r.err = err
	}
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	r.f = nil
	return r.err
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	start := r.now()
	x := &Exchange{Call: int(r.calls.Add(1)), Request: Request{
		Method: req.Method,
		Path:   req.URL.Path,
		Header: r.scrub.requestHeaders(req.Header),
	}}
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		x.Request.Body = r.bodyJSON(body)
	}
	resp, err := r.next.RoundTrip(req)
	at := r.since(start)
	if err != nil {
		x.End = End{AtMS: at, Kind: EndError, Error: r.scrub.string(err.Error())}
		if req.Context().Err() != nil {
			x.End = End{AtMS: at, Kind: EndCancelled}
		}
		r.write(x)
		return nil, err
	}
	x.Response = &Response{Status: resp.StatusCode, AtMS: at}
	for k, v := range resp.Header {
		if keepResponseHeader(k) {
			if x.Response.Header == nil {
				x.Response.Header = map[string]string{}
			}
			x.Response.Header[k] = r.scrub.string(v[0])
		}
	}
	resp.Body = &recordingBody{rec: r, x: x, body: resp.Body, start: start, ctxErr: req.Context().Err}
	return resp, nil
}

// bodyJSON keeps a JSON body as it is (compacted and scrubbed); anything else becomes a
// JSON string.
func (r *Recorder) bodyJSON(body []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, body) == nil {
		return r.scrub.bytes(buf.Bytes())
	}
	s, _ := json.Marshal(r.scrub.string(string(body)))
	return s
}

func (r *Recorder) since(start time.Time) int64 { return r.now().Sub(start).Milliseconds() }

// write finishes an exchange: its reads are scrubbed and the line is written.
func (r *Recorder) write(x *Exchange) {
	x.Chunks = r.scrub.chunks(x.Chunks)
	if err := r.writeLine(x); err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
	}
}

func (r *Recorder) writeLine(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode cassette line: %w", err)
	}
	// A last pass over the whole line: nothing recorded may carry a secret.
	line := r.scrub.bytes(buf.Bytes())
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return errors.New("cassette already closed")
	}
	_, err := r.f.Write(line)
	return err
}

// recordingBody passes the response body through, noting each read and how it ended.
type recordingBody struct {
	rec    *Recorder
	x      *Exchange
	body   io.ReadCloser
	start  time.Time
	ctxErr func() error
	once   sync.Once
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.x.Chunks = append(b.x.Chunks, newChunk(b.rec.since(b.start), p[:n]))
	}
	switch {
	case errors.Is(err, io.EOF):
		b.finish(End{Kind: EndEOF})
	case err != nil && b.ctxErr() != nil:
		b.finish(End{Kind: EndCancelled})
	case err != nil:
		b.finish(End{Kind: EndError, Error: err.Error()})
	}
	return n, err
}

func (b *recordingBody) Close() error {
	err := b.body.Close()
	if b.ctxErr() != nil {
		b.finish(End{Kind: EndCancelled})
	} else {
		b.finish(End{Kind: EndClosed})
	}
	return err
}

// finish records the end once: the first of EOF, a read error or Close.
func (b *recordingBody) finish(e End) {
	b.once.Do(func() {
		e.AtMS = b.rec.since(b.start)
		e.Error = b.rec.scrub.string(e.Error)
		b.x.End = e
		b.rec.write(b.x)
	})
}

// newChunk copies one read into a chunk.
func newChunk(atMS int64, p []byte) Chunk {
	if utf8.Valid(p) {
		return Chunk{AtMS: atMS, Data: string(p)}
	}
	return Chunk{AtMS: atMS, Base64: bytes.Clone(p)}
}
