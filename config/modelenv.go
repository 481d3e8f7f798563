package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Generation holds the sampling settings Kimi CLI reads from KIMI_MODEL_* variables for a
// kimi provider. They reach every request body of the run.
type Generation struct {
	Temperature *float64
	TopP        *float64
	// CompletionCap is a hard cap on max_completion_tokens: positive caps every request
	// (also below what the context window leaves), negative sends no cap at all, 0 keeps
	// kimi-run's default (the room left in a configured window).
	CompletionCap int
}

// modelEnv is what the KIMI_MODEL_* variables say beyond the name and the window.
type modelEnv struct {
	Generation
	// capabilities replaces the model's capabilities when KIMI_MODEL_CAPABILITIES is set.
	capabilities []string
	warnings     []string
}

// knownCapabilities are the capabilities Kimi CLI knows; it drops the others silently, we
// drop them with a warning.
var knownCapabilities = map[string]bool{"thinking": true, "always_thinking": true, "image_in": true, "video_in": true}

// readModelEnv parses KIMI_MODEL_TEMPERATURE, KIMI_MODEL_TOP_P,
// KIMI_MODEL_MAX_COMPLETION_TOKENS (or its older name KIMI_MODEL_MAX_TOKENS) and
// KIMI_MODEL_CAPABILITIES. A value that does not parse is a usage error: a CI job should
// not run with a setting silently dropped.
func readModelEnv(env Env) (modelEnv, error) {
	getenv := env.Getenv
	var m modelEnv
	for _, v := range []struct {
		name string
		dst  **float64
		max  float64
	}{
		{"KIMI_MODEL_TEMPERATURE", &m.Temperature, 2},
		{"KIMI_MODEL_TOP_P", &m.TopP, 1},
	} {
		raw := strings.TrimSpace(getenv(v.name))
		if raw == "" {
			continue
		}
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > v.max {
			return m, Usagef("%s must be a number from 0 to %g, got %q", v.name, v.max, raw)
		}
		*v.dst = &f
	}
	for _, name := range []string{"KIMI_MODEL_MAX_COMPLETION_TOKENS", "KIMI_MODEL_MAX_TOKENS"} {
		raw := strings.TrimSpace(getenv(name))
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			return m, Usagef("%s must be a whole number of tokens (0 or less: send no cap), got %q", name, raw)
		}
		m.CompletionCap = n
		if n <= 0 {
			m.CompletionCap = -1
		}
		break // the first one set wins, as in Kimi CLI
	}
	if raw, ok := lookup(env, "KIMI_MODEL_CAPABILITIES"); ok {
		m.capabilities = []string{}
		for _, c := range strings.Split(raw, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			switch {
			case c == "":
			case knownCapabilities[c]:
				m.capabilities = append(m.capabilities, c)
			default:
				m.warnings = append(m.warnings, fmt.Sprintf("KIMI_MODEL_CAPABILITIES: unknown capability %q ignored (known: thinking, always_thinking, image_in, video_in)", c))
			}
		}
	}
	return m, nil
}

// lookup reports a variable that is set and not blank.
func lookup(env Env, name string) (string, bool) {
	v := env.Getenv(name)
	return v, strings.TrimSpace(v) != ""
}

// alwaysThinking reports whether a model thinks whatever the switch says: its
// capabilities say so, or, as Kimi CLI derives it, its id names a thinking or reasoning
// model. Such a model is not sent the default_thinking switch.
func alwaysThinking(model string, capabilities []string) bool {
	for _, c := range capabilities {
		if c == "always_thinking" {
			return true
		}
	}
	id := strings.ToLower(model)
	return strings.Contains(id, "thinking") || strings.Contains(id, "reason")
}

// RequestFields are the sampling settings merged into every request body. The thinking
// switch is not among them: each wire protocol says it its own way (model.Config.Thinking).
func (e Endpoint) RequestFields() map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	add := func(name string, v *float64) {
		if v == nil {
			return
		}
		if fields == nil {
			fields = map[string]json.RawMessage{}
		}
		fields[name] = json.RawMessage(strconv.FormatFloat(*v, 'g', -1, 64))
	}
	add("temperature", e.Generation.Temperature)
	add("top_p", e.Generation.TopP)
	return fields
}
