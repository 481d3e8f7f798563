package model

import (
	"encoding/json"
	"net/http"
	"time"
)

// Config says how to reach a model: the provider's wire protocol, its endpoint and what
// every request carries. Each protocol's client reads the fields it needs.
type Config struct {
	// Protocol is the provider's type as Kimi CLI's config.toml names it ("kimi",
	// "openai_legacy", ...); it picks the client (model/protocols). Empty means chat
	// completions.
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
	// Gemini sets thinkingConfig (model/gemini).
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
