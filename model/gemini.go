package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Gemini is a Model on Gemini's streamGenerateContent API: Google AI (provider types
// gemini and google_genai) or Vertex AI (vertexai). It is a decoder of its own over the
// package's transport rather than Google's SDK, which would add a third to the binary and
// milliseconds to every start (docs/design.md), and would keep the HTTP status, the
// stream's lines and the reply's size out of reach of the error types, the stall watch and
// the cassettes every client shares.
type Gemini struct {
	cfg  Config
	http doer
	url  string
	ids  atomic.Int64
}

// Default endpoints of the Gemini protocols.
const (
	GeminiBaseURL = "https://generativelanguage.googleapis.com"
	VertexBaseURL = "https://aiplatform.googleapis.com"
)

// NewGemini builds the client for cfg.Protocol gemini, google_genai or vertexai.
func NewGemini(cfg Config) *Gemini {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 120 * time.Second
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: NewTransport(cfg.IdleTimeout)}
	}
	headers := map[string]string{"Content-Type": "application/json"}
	if cfg.APIKey != "" {
		headers["x-goog-api-key"] = cfg.APIKey
	}
	for k, v := range cfg.Headers {
		headers[k] = v // custom headers may replace ours (an Authorization for Vertex AI)
	}
	// ExtraBody's fields are chat-completions ones (Kimi's thinking switch, sampling):
	// Gemini refuses unknown top-level fields, so they are not merged here.
	return &Gemini{cfg: cfg, http: &transport{next: hc, headers: headers}, url: geminiURL(cfg)}
}

// geminiURL is the streaming endpoint of cfg's model, as Google's genai SDK builds it:
// base URL, API version (v1beta for Google AI, v1beta1 for Vertex AI, unless the base URL
// names one already), the model's resource name and :streamGenerateContent?alt=sse.
func geminiURL(cfg Config) string {
	vertex := cfg.Protocol == "vertexai"
	base, version := strings.TrimRight(cfg.BaseURL, "/"), "v1beta"
	if vertex {
		version = "v1beta1"
	}
	if base == "" {
		base = defaultGeminiBase(cfg)
	}
	if i := strings.LastIndex(base, "/"); i >= 0 && apiVersion(base[i+1:]) {
		version = ""
	}
	name := cfg.Model
	switch {
	case !vertex && !strings.HasPrefix(name, "models/") && !strings.HasPrefix(name, "tunedModels/"):
		name = "models/" + name
	case vertex && !strings.HasPrefix(name, "projects/") && !strings.HasPrefix(name, "publishers/"):
		name = "publishers/google/models/" + name
		if cfg.APIKey == "" && cfg.Project != "" {
			// Without a key (express mode) Vertex AI addresses the project's models.
			name = "projects/" + cfg.Project + "/locations/" + firstSet(cfg.Location, "global") + "/" + name
		}
	}
	if version != "" {
		base += "/" + version
	}
	return base + "/" + name + ":streamGenerateContent?alt=sse"
}

// GeminiDefaultBaseURL is the endpoint of a Gemini protocol when the config names none.
func GeminiDefaultBaseURL(cfg Config) string { return defaultGeminiBase(cfg) }

// defaultGeminiBase is the endpoint when the config names none: Google AI's, or Vertex
// AI's global or regional one.
func defaultGeminiBase(cfg Config) string {
	if cfg.Protocol != "vertexai" {
		return GeminiBaseURL
	}
	if cfg.APIKey == "" && cfg.Location != "" && cfg.Location != "global" {
		return "https://" + cfg.Location + "-aiplatform.googleapis.com"
	}
	return VertexBaseURL
}

// apiVersion reports whether a path segment is an API version (v1, v1beta, v1beta1, ...).
func apiVersion(seg string) bool {
	rest, ok := strings.CutPrefix(seg, "v")
	if !ok || rest == "" || rest[0] < '0' || rest[0] > '9' {
		return false
	}
	rest = strings.TrimLeft(rest, "0123456789")
	return rest == "" || strings.HasPrefix(rest, "beta") || strings.HasPrefix(rest, "alpha")
}

// Stream implements Model.
func (g *Gemini) Stream(ctx context.Context, req Request, h Handler) (Reply, error) {
	ctx, x := withExchange(ctx)
	x.size = newReplyMeter(g.cfg.MaxReplyBytes)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The idle timer cancels the request when the stream goes silent; every data line
	// resets it.
	idle := time.AfterFunc(g.cfg.IdleTimeout, func() { cancel(ErrStreamIdle) })
	defer idle.Stop()

	body, err := json.Marshal(g.body(req))
	if err != nil {
		return Reply{}, fmt.Errorf("encode request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url, bytes.NewReader(body))
	if err != nil {
		return Reply{}, fmt.Errorf("model request: %w", err)
	}
	resp, err := g.http.Do(hreq)
	if err != nil {
		return Reply{}, g.wrap(ctx, x, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		_, _ = io.Copy(io.Discard, resp.Body) // the transport kept what the error needs
		return Reply{}, g.wrap(ctx, x, fmt.Errorf("provider returned HTTP %d", resp.StatusCode))
	}

	rr := newGeminiReader(h, x.size, g.newID)
	lines := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		data, err := dataLine(lines)
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			idle.Reset(g.cfg.IdleTimeout)
			err = rr.add(data)
		}
		if err != nil {
			return rr.reply(), g.wrap(ctx, x, midStream(err))
		}
		if rr.errDoc != nil {
			break // an error object ends the reply (result reports it)
		}
	}
	if doc := x.streamError(); doc != nil && rr.errDoc == nil && rr.finish == "" {
		rr.errDoc = doc // an error the data lines did not carry (a bare JSON object)
	}
	reply, err := rr.result()
	if err != nil {
		return reply, g.wrap(ctx, x, err)
	}
	return reply, nil
}

// dataLine returns the payload of the next data line of an event stream the transport
// filtered (only data lines get through), skipping empty ones and [DONE]; io.EOF at the
// end. A line is held whole: the transport's filter has bounded its length.
func dataLine(r *bufio.Reader) ([]byte, error) {
	for {
		var line []byte
		for {
			frag, err := r.ReadSlice('\n')
			line = append(line, frag...)
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 || !errors.Is(err, io.EOF) {
				return nil, err
			}
			break // a last line without a newline
		}
		payload, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if len(payload) == 0 || bytes.Equal(payload, []byte("[DONE]")) {
			continue
		}
		return payload, nil
	}
}

// wrap classifies an error as OpenAI.wrap does: the stall watch's cancellation, the HTTP
// status and body the transport kept, or an error object found in the stream, with the
// wait the provider asked for.
func (g *Gemini) wrap(ctx context.Context, x *exchange, err error) error {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrStreamIdle) {
		return fmt.Errorf("%w after %s", ErrStreamIdle, g.cfg.IdleTimeout)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if status, body := x.errorAnswer(); status != 0 {
		err = providerError(status, body, nil)
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		if ms := x.ms.Load(); ms >= 0 {
			pe.RetryAfter = ms
		}
	}
	return err
}

func (g *Gemini) newID() string {
	return fmt.Sprintf("call_%d", g.ids.Add(1))
}

var _ Model = (*Gemini)(nil)
