package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// Client is a Model on the Anthropic Messages API (provider type "anthropic"): Claude
// on api.anthropic.com, or any server that speaks the same protocol (Moonshot's, a
// gateway's). It is a decoder of its own beside the chat-completions one rather than
// Anthropic's Go SDK, which would add 9 MB to the binary and a millisecond to every start
// (docs/design.md); what it shares with that client is the transport (headers, the
// error answers, Retry-After, the SSE filter and the reply's size cap) and the error types.
type Client struct {
	cfg model.Config
	s   *model.Streamer
	url string
	ids model.CallIDs
}

// Version is the anthropic-version header every request carries; a custom header
// of the provider replaces it.
const Version = "2023-06-01"

// interleavedThinking is the beta that lets a model think between tool calls; Kimi CLI
// asks for it with budget thinking (adaptive thinking has it built in).
const interleavedThinking = "interleaved-thinking-2025-05-14"

// maxPauses bounds how often one turn may be paused (stop_reason pause_turn) and resumed.
const maxPauses = 8

// New builds the client.
func New(cfg model.Config) *Client {
	a := &Client{cfg: cfg, url: messagesURL(cfg.BaseURL), ids: model.CallIDs{Prefix: "toolu_kimi_run_"}}
	withHeaders := cfg
	withHeaders.Headers = a.headers()
	a.s = model.NewStreamer(withHeaders)
	return a
}

// messagesURL is the endpoint under a base URL. Kimi CLI's base_url for this type is the
// API's root (https://api.anthropic.com, Moonshot's https://api.moonshot.ai/anthropic);
// one that already ends in /v1, as other providers' base URLs do, is taken too.
func messagesURL(base string) string {
	base = strings.TrimRight(base, "/")
	switch {
	case strings.HasSuffix(base, "/v1/messages"):
		return base
	case strings.HasSuffix(base, "/v1"):
		return base + "/messages"
	}
	return base + "/v1/messages"
}

// headers are what every request carries: the API version, the key as x-api-key, the
// thinking beta when asked for, then the provider's headers (User-Agent, custom_headers),
// which replace any of them but anthropic-beta, whose values are joined with ours.
func (a *Client) headers() map[string]string {
	h := map[string]string{"anthropic-version": Version}
	if a.cfg.APIKey != "" {
		h["x-api-key"] = a.cfg.APIKey
	}
	var betas []string
	if a.cfg.Thinking != nil && *a.cfg.Thinking && !adaptiveThinking(a.cfg.Model) {
		betas = append(betas, interleavedThinking)
	}
	for k, v := range a.cfg.Headers {
		if strings.EqualFold(k, "anthropic-beta") {
			for _, b := range strings.Split(v, ",") {
				if b = strings.TrimSpace(b); b != "" && !containsFold(betas, b) {
					betas = append(betas, b)
				}
			}
			continue
		}
		for have := range h {
			if strings.EqualFold(have, k) {
				delete(h, have)
			}
		}
		h[k] = v
	}
	if len(betas) > 0 {
		h["anthropic-beta"] = strings.Join(betas, ",")
	}
	return h
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// Stream implements Model.
func (a *Client) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	rd := newAnthropicReader(h, model.NewReplyMeter(a.cfg.MaxReplyBytes), a.ids.New)
	var prior []block
	for pauses := 0; ; pauses++ {
		if err := a.exchange(ctx, req, prior, rd); err != nil {
			rep := rd.reply()
			rep.ToolCalls = rd.calls()
			return rep, err
		}
		if rd.stop != "pause_turn" {
			break
		}
		// The API paused a long turn: the turn so far goes back as the last assistant
		// message, and the model carries on from it.
		if pauses == maxPauses {
			return rd.reply(), &model.FinishError{Reason: fmt.Sprintf("pause_turn (%d times in a row)", pauses+1)}
		}
		prior = rd.sentBack()
		rd.next()
	}
	rd.closeAll()
	reply := rd.reply()
	reply.ToolCalls = rd.calls()
	switch rd.stop {
	case "end_turn", "stop_sequence":
		reply.FinishReason = "stop"
	case "tool_use":
		reply.FinishReason = "tool_calls"
	case "max_tokens", "model_context_window_exceeded":
		// Both cut the reply where it stood: the loop continues a cut answer (and compacts
		// first when the context is full), as for chat completions' "length".
		reply.FinishReason = "length"
	case "":
		// message_stop without a stop_reason (a lenient server): the content says.
		reply.FinishReason = "stop"
		if len(reply.ToolCalls) > 0 {
			reply.FinishReason = "tool_calls"
		}
	default:
		// refusal (the model declined for safety reasons) and anything new: what came is
		// not an answer, and asking again would most likely end the same way.
		return reply, &model.FinishError{Reason: rd.stop}
	}
	if strings.TrimSpace(reply.Text) == "" && len(reply.ToolCalls) == 0 {
		return reply, model.ErrEmptyReply
	}
	return reply, nil
}

// exchange makes one HTTP request and reads its stream into rd. It fails unless the
// response ended as a whole message.
func (a *Client) exchange(ctx context.Context, req model.Request, prior []block, rd *anthropicReader) error {
	body, err := a.body(req, prior)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	st, err := a.s.Open(ctx, a.url, nil, body)
	if err != nil {
		return err
	}
	defer st.Close()
	// One cap for the whole turn, however often the API paused it.
	st.SetMeter(rd.size)
	st.NoProgress = isPing
	for {
		payload, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st.Fail(err)
		}
		if err := rd.add(payload); err != nil {
			return st.Fail(err)
		}
		if rd.errDoc != nil {
			// An error event: the reply is cut, and the event says why.
			return st.Fail(model.ProviderErrorOf(0, rd.errDoc, nil))
		}
	}
	if !rd.finished() {
		if doc := st.Plain(); doc != nil {
			// A server that ignored stream: true answered with the whole message.
			if err := rd.whole(doc); err != nil {
				return st.Fail(err)
			}
		}
	}
	if !rd.finished() {
		return st.Fail(model.ErrIncompleteStream)
	}
	return nil
}

// isPing reports whether a payload is a ping event: a keep-alive, no sign of progress (a
// server that only pings is as stalled as one that sends comments).
func isPing(payload []byte) bool {
	return bytes.Contains(payload, []byte(`"ping"`)) && bytes.Equal(jsonField(payload, "type"), []byte(`"ping"`))
}

// jsonField is a top-level field of a JSON object, raw; nil when absent or not an object.
func jsonField(doc []byte, name string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return nil
	}
	return bytes.TrimSpace(m[name])
}

var _ model.Model = (*Client)(nil)
