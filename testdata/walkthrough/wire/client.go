// Package walkwire is the client of the walkthrough's wire protocol (docs/design.md, "Add a
// wire protocol"): POST {base}/walkwire with the conversation as chat-completions
// messages, answered by an event stream of flat events — {"text"}, {"thinking"}, {"call"}
// (a tool call's delta, by index), {"finish"}, {"usage"} or {"error"}.
package walkwire

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/model"
)

// Client is a Model on the walkwire protocol.
type Client struct {
	cfg model.Config
	s   *model.Streamer
	ids atomic.Int64
}

// New builds the client.
func New(cfg model.Config) *Client { return &Client{cfg: cfg, s: model.NewStreamer(cfg)} }

type message struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	Reasoning  string `json:"reasoning_content,omitempty"`
	ToolCalls  []call `json:"tool_calls,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

type call struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// body is the request body.
func (c *Client) body(req model.Request) map[string]any {
	msgs := make([]message, 0, len(req.Messages))
	for _, m := range req.Messages {
		out := message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID}
		if len(m.Images) > 0 {
			parts := []map[string]any{{"type": "text", "text": m.Content}}
			for _, im := range m.Images {
				url := "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
				parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}})
			}
			out.Content = parts
		}
		for _, tc := range m.ToolCalls {
			wc := call{ID: tc.ID, Type: "function"}
			wc.Function.Name, wc.Function.Arguments = tc.Name, tc.Arguments
			out.ToolCalls = append(out.ToolCalls, wc)
		}
		msgs = append(msgs, out)
	}
	b := map[string]any{"model": c.cfg.Model, "stream": true, "messages": msgs}
	if req.MaxTokens > 0 {
		b["max_tokens"] = req.MaxTokens
	}
	if !req.NoTools && len(req.Tools) > 0 {
		var ts []tool
		for _, t := range req.Tools {
			ts = append(ts, tool{Name: t.Name(), Description: t.Description(), Parameters: json.RawMessage(t.Schema())})
		}
		b["tools"] = ts
	}
	return b
}

// Stream implements model.Model.
func (c *Client) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	body, err := json.Marshal(c.body(req))
	if err != nil {
		return model.Reply{}, fmt.Errorf("encode request: %w", err)
	}
	header := http.Header{"Authorization": {"Bearer " + c.cfg.APIKey}}
	st, err := c.s.Open(ctx, model.Endpoint(c.cfg.BaseURL, "/walkwire"), header, body)
	if err != nil {
		return model.Reply{}, err
	}
	defer st.Close()
	r := &reader{h: h, size: st.Size(), newID: func() string { return fmt.Sprintf("call_%d", c.ids.Add(1)) }}
	for r.errDoc == nil {
		data, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = r.add(data)
		}
		if err != nil {
			return r.reply(), st.Fail(err)
		}
	}
	reply, err := r.result()
	var pe *model.ProviderError
	if errors.As(err, &pe) && pe.StatusCode == 0 {
		err = st.Classify(err) // the wait the provider asked for
	}
	return reply, err
}
