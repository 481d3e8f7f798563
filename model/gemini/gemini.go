package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// Client is a Model on Gemini's streamGenerateContent API: Google AI (provider types
// gemini and google_genai) or Vertex AI (vertexai). It is a decoder of its own over the
// package's streamer rather than Google's SDK, which would add a third to the binary and
// milliseconds to every start (docs/design.md), and would keep the HTTP status, the
// stream's lines and the reply's size out of reach of the error types, the stall watch and
// the cassettes every client shares.
type Client struct {
	cfg    model.Config
	s      *model.Streamer
	url    string
	header http.Header
	ids    model.CallIDs
}

// Default endpoints of the Gemini protocols.
const (
	GeminiBaseURL = "https://generativelanguage.googleapis.com"
	VertexBaseURL = "https://aiplatform.googleapis.com"
)

// New builds the client for cfg.Protocol gemini, google_genai or vertexai.
func New(cfg model.Config) *Client {
	// ExtraBody's fields are chat-completions ones (the KIMI_MODEL_* sampling settings):
	// Gemini refuses unknown top-level fields, so the streamer merges none.
	sc := cfg
	sc.ExtraBody = nil
	header := http.Header{}
	if cfg.APIKey != "" {
		header.Set("x-goog-api-key", cfg.APIKey) // custom headers may replace it (transport)
	}
	return &Client{cfg: cfg, s: model.NewStreamer(sc), url: geminiURL(cfg), header: header}
}

// geminiURL is the streaming endpoint of cfg's model, as Google's genai SDK builds it:
// base URL, API version (v1beta for Google AI, v1beta1 for Vertex AI, unless the base URL
// names one already), the model's resource name and :streamGenerateContent?alt=sse.
func geminiURL(cfg model.Config) string {
	vertex := cfg.Protocol == "vertexai"
	base, version := strings.TrimRight(cfg.BaseURL, "/"), "v1beta"
	if vertex {
		version = "v1beta1"
	}
	if base == "" {
		base = DefaultBaseURL(cfg)
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
			name = "projects/" + cfg.Project + "/locations/" + model.FirstSet(cfg.Location, "global") + "/" + name
		}
	}
	if version != "" {
		base += "/" + version
	}
	return base + "/" + name + ":streamGenerateContent?alt=sse"
}

// DefaultBaseURL is the endpoint when the config names none: Google AI's, or Vertex AI's
// global or regional one.
func DefaultBaseURL(cfg model.Config) string {
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
func (g *Client) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	body, err := json.Marshal(g.body(req))
	if err != nil {
		return model.Reply{}, fmt.Errorf("encode request: %w", err)
	}
	st, err := g.s.Open(ctx, g.url, g.header, body)
	if err != nil {
		return model.Reply{}, err
	}
	defer st.Close()
	rr := newGeminiReader(h, st.Size(), g.ids.New)
	for rr.errDoc == nil { // an error object before the finish ends the reply (result says so)
		data, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = rr.add(data)
		}
		if err != nil {
			return rr.reply(), st.Fail(err)
		}
	}
	if doc := st.Plain(); doc != nil && rr.finish == "" && rr.errDoc == nil {
		// A server that ignored alt=sse: streamGenerateContent without it answers a JSON
		// array of the same objects, generateContent one object.
		if err := rr.addPlain(doc); err != nil {
			return rr.reply(), st.Fail(err)
		}
	}
	if doc := st.StreamError(); doc != nil && rr.errDoc == nil && rr.finish == "" {
		rr.errDoc = doc // an error the data lines did not carry (a bare JSON object)
	}
	reply, err := rr.result()
	if err != nil {
		var pe *model.ProviderError
		if errors.As(err, &pe) && pe.StatusCode == 0 {
			err = st.Classify(err) // the wait the provider asked for
		}
		return reply, err
	}
	return reply, nil
}

var _ model.Model = (*Client)(nil)
