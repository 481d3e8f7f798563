package model

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Config says how to reach a model: the provider's wire protocol, its endpoint and what
// every request carries. Each protocol's client reads the fields it needs.
type Config struct {
	// Protocol is the provider's type as Kimi CLI's config.toml names it ("kimi",
	// "openai_legacy", ...); it picks the client (see New). Empty means chat completions.
	Protocol string
	BaseURL  string
	APIKey   string
	Model    string
	// IdleTimeout abandons a stream that sends nothing for this long, and bounds the wait
	// for response headers. Zero means 120 s.
	IdleTimeout time.Duration
	// ExtraBody holds top-level fields merged into every request body (the sampling
	// settings: temperature, top_p).
	ExtraBody map[string]json.RawMessage
	// Headers are added to every request (User-Agent, the provider's custom headers).
	Headers map[string]string
	// Thinking is the thinking switch (--thinking, Kimi's default_thinking); nil leaves it
	// to the provider. Each protocol says it its own way: chat completions send Kimi's
	// "thinking" field and, when on, reasoning_content on every assistant message with
	// tool calls, even empty (thinking models reject the request otherwise); the
	// Responses API asks for a reasoning effort, summaries and the encrypted reasoning;
	// Gemini sets thinkingConfig (gemini_request.go).
	Thinking *bool
	// ReasoningKey is an openai_legacy provider's reasoning_key: the one message field the
	// reasoning is read from and sent back in; "" reads and sends none. nil (no key, and
	// every other provider type) reads every known field and answers in the one it came in.
	ReasoningKey *string
	// MediaInToolResults sends the images and videos of tool results inside the tool
	// messages, as Kimi CLI sends them to Moonshot's API; without it they follow the results
	// in a user message, the only place OpenAI's API and most compatible servers take them.
	MediaInToolResults bool
	// MaxReplyBytes bounds one reply: its content, reasoning and tool arguments together
	// (see ReplyTooLargeError). Zero means DefaultMaxReplyBytes.
	MaxReplyBytes int64
	// HTTPClient is the underlying client; nil builds one. It must not set Timeout:
	// that would cut long streams.
	HTTPClient *http.Client
	// Predial is a connection to the endpoint opened ahead of the first request; the
	// client built when HTTPClient is nil takes it. nil dials when the request is made.
	Predial *Predial
	// Project and Location are Vertex AI's (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION):
	// without an API key, the model is addressed under them.
	Project, Location string
}

// protocols maps a provider type to the client that speaks its wire protocol. Adding a
// protocol is adding its client to this package and its row here: config and run only pass
// the provider's type along, and retries, budgets, fallback, cassettes and the stall watch
// work on any Model whose failures are this package's error types (errors.go).
var protocols = map[string]func(Config) Model{
	"":                 chatCompletions,
	"kimi":             chatCompletions,
	"openai_legacy":    chatCompletions,
	"openai_responses": func(cfg Config) Model { return NewResponses(cfg) },
	"anthropic":        func(cfg Config) Model { return NewAnthropic(cfg) },
	// Gemini's generateContent API: google_genai is Kimi CLI's older name for gemini;
	// vertexai is the same API on Vertex AI (gemini.go).
	"gemini":       gemini,
	"google_genai": gemini,
	"vertexai":     gemini,
}

func gemini(cfg Config) Model { return NewGemini(cfg) }

func chatCompletions(cfg Config) Model { return NewOpenAI(cfg) }

// Speaks reports whether New has a client for the provider type.
func Speaks(providerType string) bool {
	_, ok := protocols[providerType]
	return ok
}

// Protocols lists the provider types New accepts, sorted, for messages.
func Protocols() []string {
	var names []string
	for name := range protocols {
		if name != "" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// New returns the client for cfg.Protocol.
func New(cfg Config) (Model, error) {
	mk, ok := protocols[cfg.Protocol]
	if !ok {
		return nil, fmt.Errorf("provider type %q is not spoken here (known: %s)", cfg.Protocol, strings.Join(Protocols(), ", "))
	}
	return mk(cfg), nil
}
