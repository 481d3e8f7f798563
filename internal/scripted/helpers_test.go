package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// turn is what a client made of one streamed reply.
type turn struct {
	Text, Reasoning string
	Calls           []call
	Finish          string
	Usage           usage
	NilIndexes      int    // tool-call deltas that came without an index
	RetryAfter      string // the Retry-After header of the response
	Err             string // describe(error) of creating or reading the stream
}

type call struct{ ID, Name, Args string }

type usage struct{ Prompt, Completion, Total, Cached int }

// headerDoer remembers the headers of the last response, which go-openai drops
// from its errors.
type headerDoer struct {
	mu   sync.Mutex
	last http.Header
}

func (d *headerDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		d.mu.Lock()
		d.last = resp.Header
		d.mu.Unlock()
	}
	return resp, err
}

type client struct {
	oa    *openai.Client
	doer  *headerDoer
	model string
}

// newClient returns a go-openai client for baseURL; emptyLimit 0 keeps the
// library's default of 300 empty lines per Recv.
func newClient(baseURL string, emptyLimit uint) *client {
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = baseURL
	if emptyLimit > 0 {
		cfg.EmptyMessagesLimit = emptyLimit
	}
	d := &headerDoer{}
	cfg.HTTPClient = d
	return &client{oa: openai.NewClientWithConfig(cfg), doer: d, model: "kimi-k2-turbo-preview"}
}

// stream sends msgs and reads the whole reply, merging tool-call deltas the
// tolerant way: a missing index means the position in the delta, and a known
// index with a new id opens a new call.
func (c *client) stream(ctx context.Context, msgs ...openai.ChatCompletionMessage) turn {
	if len(msgs) == 0 {
		msgs = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}}
	}
	st, err := c.oa.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: c.model, Messages: msgs, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	var t turn
	c.doer.mu.Lock()
	t.RetryAfter = c.doer.last.Get("Retry-After")
	c.doer.mu.Unlock()
	if err != nil {
		t.Err = describe(err)
		return t
	}
	defer st.Close()
	slot := map[int]int{}
	for {
		resp, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return t
		}
		if err != nil {
			t.Err = describe(err)
			return t
		}
		if u := resp.Usage; u != nil {
			t.Usage = usage{u.PromptTokens, u.CompletionTokens, u.TotalTokens, 0}
			if u.PromptTokensDetails != nil {
				t.Usage.Cached = u.PromptTokensDetails.CachedTokens
			}
		}
		for _, ch := range resp.Choices {
			t.Text += ch.Delta.Content
			t.Reasoning += ch.Delta.ReasoningContent
			if ch.FinishReason != "" {
				t.Finish = string(ch.FinishReason)
			}
			for pos, tc := range ch.Delta.ToolCalls {
				idx := pos
				if tc.Index == nil {
					t.NilIndexes++
				} else {
					idx = *tc.Index
				}
				i, ok := slot[idx]
				if !ok || (tc.ID != "" && t.Calls[i].ID != "" && tc.ID != t.Calls[i].ID) {
					t.Calls = append(t.Calls, call{})
					i = len(t.Calls) - 1
					slot[idx] = i
				}
				if tc.ID != "" {
					t.Calls[i].ID = tc.ID
				}
				t.Calls[i].Name += tc.Function.Name
				t.Calls[i].Args += tc.Function.Arguments
			}
		}
	}
}

// describe names an error by its type, the way a client would classify it.
func describe(err error) string {
	var api *openai.APIError
	var req *openai.RequestError
	switch {
	case errors.As(err, &api):
		return fmt.Sprintf("api %d %s", api.HTTPStatusCode, api.Type)
	case errors.As(err, &req):
		return fmt.Sprintf("request %d", req.HTTPStatusCode)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return "too many empty messages"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected EOF"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "other: " + err.Error()
}

// recordingTB is a testing.TB that keeps Errorf calls instead of failing, so
// tests can check what the server reports.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}
