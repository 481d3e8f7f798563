// Package cassette records the HTTP exchanges of a run's model calls to a file and plays
// them back in place of the network.
//
// It works at the HTTP layer, under the go-openai client: a Recorder or a Replayer is the
// http.RoundTripper of the model client, so every call the run makes (the main agent's,
// subagents', compaction summaries, every retried attempt) is captured with its real
// streaming shape: the bytes of each read of the response body and when they arrived.
//
// A cassette is JSONL (docs/cassettes.md): a header line, then one line per exchange.
// Secrets (the API key, the Authorization header, configured header values) are scrubbed
// before anything is written.
package cassette

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/kimi-run/kimi-run/internal/infile"
)

// Version is the cassette format this package writes and reads.
const Version = 1

// Header is the first line of a cassette.
type Header struct {
	// Format is the cassette format version ("kimi_run_cassette": 1).
	Format     int       `json:"kimi_run_cassette"`
	RecordedAt time.Time `json:"recorded_at"`
	// KimiRun is the version of kimi-run that recorded it.
	KimiRun string `json:"kimi_run_version,omitempty"`
	Model   string `json:"model"`
	// BaseURL is the endpoint, without credentials or query.
	BaseURL string `json:"base_url"`
	// Provider is the provider type, which says the wire protocol the requests speak
	// (kimi, gemini, ...); a replay speaks it too. Empty in older cassettes: chat
	// completions.
	Provider string `json:"provider,omitempty"`
	// WorkDir is the recording's work directory; request bodies are compared with it
	// replaced by the replay's own.
	WorkDir string `json:"work_dir"`
}

// Exchange is one HTTP request of a model call and what came back.
type Exchange struct {
	// Call numbers exchanges in the order their requests started, from 1.
	Call    int     `json:"call"`
	Request Request `json:"request"`
	// Response is nil when no response arrived (a refused connection, a header
	// timeout, a cancelled run); End says what happened instead.
	Response *Response `json:"response,omitempty"`
	// Chunks are the response body as the client read it, one entry per read.
	Chunks []Chunk `json:"chunks,omitempty"`
	End    End     `json:"end"`
}

// Request is what the client sent.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Header holds the request headers; secret ones are "[redacted]".
	Header map[string]string `json:"header,omitempty"`
	// Body is the JSON request body (scrubbed).
	Body json.RawMessage `json:"body"`
}

// Response is the status line and the headers that matter for replay.
type Response struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	// AtMS is when the headers arrived, in milliseconds after the request started.
	AtMS int64 `json:"at_ms"`
}

// Chunk is one read of the response body. Data holds it when it is valid UTF-8, Base64
// otherwise (a read can split a character).
type Chunk struct {
	AtMS   int64  `json:"at_ms"`
	Data   string `json:"data,omitempty"`
	Base64 []byte `json:"base64,omitempty"`
}

func (c Chunk) bytes() []byte {
	if c.Base64 != nil {
		return c.Base64
	}
	return []byte(c.Data)
}

// How an exchange ended.
const (
	// EndEOF: the body ended cleanly.
	EndEOF = "eof"
	// EndClosed: the client closed the body before its end (it had what it needed).
	EndClosed = "closed"
	// EndError: the transport failed (no response, or the body broke off); Error says how.
	EndError = "error"
	// EndCancelled: the client gave up (an idle timer, --timeout, a signal). Replay
	// waits for the client to give up again.
	EndCancelled = "cancelled"
)

// End is how an exchange ended.
type End struct {
	AtMS  int64  `json:"at_ms"`
	Kind  string `json:"kind"`
	Error string `json:"error,omitempty"`
}

// Cassette is a loaded recording.
type Cassette struct {
	Header    Header
	Exchanges []Exchange
}

// FormatError is a cassette file that cannot be read.
type FormatError struct {
	Path string
	Line int
	Err  error
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("cassette %s, line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("cassette %s: %v", e.Path, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// maxLine bounds one line of a cassette (one exchange, its request and reply bodies whole).
const maxLine = 64 << 20

// Load reads a cassette file, at most infile.Cassette's cap. It stops with ctx's cause
// when ctx ends.
func Load(ctx context.Context, path string) (*Cassette, error) {
	f, err := infile.Open(ctx, path, infile.Cassette)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(f)
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.Path = path
	}
	return c, err
}

// Read parses a cassette. Exchanges come back in call order, whatever order their
// lines were written in (concurrent calls finish in any order).
func Read(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	var c Cassette
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if n == 1 {
			if err := json.Unmarshal(line, &c.Header); err != nil {
				return nil, &FormatError{Line: n, Err: fmt.Errorf("not a cassette header: %w", err)}
			}
			if c.Header.Format != Version {
				return nil, &FormatError{Line: n, Err: fmt.Errorf("cassette format %d; this kimi-run reads format %d", c.Header.Format, Version)}
			}
			continue
		}
		var x Exchange
		if err := json.Unmarshal(line, &x); err != nil {
			return nil, &FormatError{Line: n, Err: err}
		}
		if x.Call < 1 {
			return nil, &FormatError{Line: n, Err: errors.New("exchange without a call number")}
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	if err := sc.Err(); err != nil {
		if tl := (*infile.TooLargeError)(nil); errors.As(err, &tl) {
			return nil, err
		}
		return nil, &FormatError{Line: n + 1, Err: err}
	}
	if n == 0 {
		return nil, &FormatError{Err: errors.New("empty file")}
	}
	sort.SliceStable(c.Exchanges, func(i, j int) bool { return c.Exchanges[i].Call < c.Exchanges[j].Call })
	return &c, nil
}

// keptResponseHeaders are the response headers a cassette keeps: what the client reads
// (the content type, the provider's requested wait) and what helps a person match a
// recording with the provider's logs.
var keptResponseHeaders = []string{"Content-Type", "Retry-After", "Retry-After-Ms", "X-Request-Id"}

func keepResponseHeader(name string) bool {
	name = http.CanonicalHeaderKey(name)
	for _, k := range keptResponseHeaders {
		if name == k {
			return true
		}
	}
	return len(name) > len("X-Ratelimit-") && name[:len("X-Ratelimit-")] == "X-Ratelimit-"
}
