// Package protocols is the table of the wire protocols kimi-run speaks, one row each, above
// their packages (which import model): config, run, cassettes and telemetry read it, and
// the tests that run every feature on every protocol iterate it. A new protocol is its
// package under model/, a row here and a dialect of internal/scripted.
package protocols

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/anthropic"
	"github.com/kimi-run/kimi-run/model/cassette"
	"github.com/kimi-run/kimi-run/model/gemini"
	"github.com/kimi-run/kimi-run/model/responses"
)

// Protocol is one wire protocol.
type Protocol struct {
	// Types maps each provider type (config.toml's type) that speaks it to that provider's
	// gen_ai.provider.name in telemetry (OpenTelemetry's well-known value where one fits).
	Types map[string]string
	// Name is the provider type tests and the docs use for the protocol.
	Name string
	// New builds the client.
	New func(model.Config) model.Model
	// Read reads one of its request bodies as the conversation a strict replay compares.
	Read cassette.Reader
	// Path is what the URL path of its requests ends with, for a base URL ending in /v1
	// and the model named MODEL.
	Path string
}

// All are the protocols, chat completions first.
var All = []Protocol{
	{
		Name:  "kimi",
		Types: map[string]string{"kimi": "moonshot_ai", "": "moonshot_ai", "openai_legacy": "openai"},
		New:   func(cfg model.Config) model.Model { return model.NewOpenAI(cfg) },
		Read:  cassette.ReadChat,
		Path:  "/v1/chat/completions",
	},
	{
		Name:  "openai_responses",
		Types: map[string]string{"openai_responses": "openai"},
		New:   func(cfg model.Config) model.Model { return responses.New(cfg) },
		Read:  responses.ReadRequest,
		Path:  "/v1/responses",
	},
	{
		Name:  "anthropic",
		Types: map[string]string{"anthropic": "anthropic"},
		New:   func(cfg model.Config) model.Model { return anthropic.New(cfg) },
		Read:  anthropic.ReadRequest,
		Path:  "/v1/messages",
	},
	{
		// google_genai is Kimi CLI's older name for gemini; vertexai is the same API on
		// Vertex AI.
		Name:  "gemini",
		Types: map[string]string{"gemini": "gcp.gemini", "google_genai": "gcp.gemini", "vertexai": "gcp.vertex_ai"},
		New:   func(cfg model.Config) model.Model { return gemini.New(cfg) },
		Read:  gemini.ReadRequest,
		Path:  "/v1/models/MODEL:streamGenerateContent",
	},
}

// Lookup returns the protocol of a provider type ("" is chat completions).
func Lookup(typ string) (Protocol, bool) {
	for _, p := range All {
		if _, ok := p.Types[typ]; ok {
			return p, true
		}
	}
	return Protocol{}, false
}

// Types lists the provider types spoken, sorted, for messages.
func Types() []string {
	var names []string
	for _, p := range All {
		for typ := range p.Types {
			if typ != "" {
				names = append(names, typ)
			}
		}
	}
	slices.Sort(names)
	return names
}

// New returns the client for cfg.Protocol.
func New(cfg model.Config) (model.Model, error) {
	p, ok := Lookup(cfg.Protocol)
	if !ok {
		return nil, fmt.Errorf("provider type %q is not spoken here (known: %s)", cfg.Protocol, strings.Join(Types(), ", "))
	}
	return p.New(cfg), nil
}

// ProviderName is the gen_ai.provider.name of a provider type: its row's, or the type
// itself.
func ProviderName(typ string) string {
	if p, ok := Lookup(typ); ok {
		return p.Types[typ]
	}
	return typ
}
