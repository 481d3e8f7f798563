package responses

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

// Client is a Model on OpenAI's Responses API (POST {base}/responses), provider type
// openai_responses: streamed semantic events (output items, text and argument deltas,
// reasoning summaries, a final response with the usage), function calls and their
// outputs as input items, reasoning items kept and sent back. Its decoder is kimi-run's
// own (docs/design.md says why not openai-go).
type Client struct {
	cfg model.Config
	s   *model.Streamer
	ids model.CallIDs
}

// New builds the client.
func New(cfg model.Config) *Client {
	return &Client{cfg: cfg, s: model.NewStreamer(cfg)}
}

// Stream implements Model.
func (r *Client) Stream(ctx context.Context, req model.Request, h model.Handler) (model.Reply, error) {
	body, err := r.request(req)
	if err != nil {
		return model.Reply{}, fmt.Errorf("build the request: %w", err)
	}
	header := http.Header{}
	if r.cfg.APIKey != "" {
		header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	st, err := r.s.Open(ctx, model.Endpoint(r.cfg.BaseURL, "/responses"), header, body)
	if err != nil {
		return model.Reply{}, err
	}
	defer st.Close()

	rr := newResponsesReader(h, st.Size(), r.ids.New)
	for !rr.finished && rr.failure == nil {
		payload, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = rr.add(payload)
		}
		if err != nil {
			return rr.reply(false), st.Fail(err)
		}
	}
	if rr.failure == nil && !rr.finished {
		if doc := st.Plain(); doc != nil {
			// A server that ignored stream:true: the whole response at once.
			var resp responsesResponse
			if err := json.Unmarshal(doc, &resp); err != nil {
				return rr.reply(false), st.Fail(fmt.Errorf("decode the response sent as one JSON document: %w", err))
			}
			if err := rr.end(&resp); err != nil {
				return rr.reply(false), st.Fail(err)
			}
		}
	}
	switch {
	case rr.failure != nil:
		// response.failed or an error event: the provider's own error, inside the stream.
		return rr.reply(false), st.Fail(model.ProviderErrorOf(0, rr.failure, nil))
	case !rr.finished:
		// The stream ended (or sent [DONE]) before the response was complete; an error
		// document the filter found says why.
		return rr.reply(false), st.Fail(model.ErrIncompleteStream)
	case rr.refused != "":
		// A content filter, or anything but the token limit: not an answer.
		return rr.reply(false), &model.FinishError{Reason: rr.refused}
	}
	reply := rr.reply(true)
	if strings.TrimSpace(reply.Text) == "" && len(reply.ToolCalls) == 0 {
		return reply, model.ErrEmptyReply
	}
	return reply, nil
}

var _ model.Model = (*Client)(nil)
