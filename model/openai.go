package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAI is a Model on any OpenAI-compatible chat-completions endpoint.
type OpenAI struct {
	client *openai.Client
	cfg    Config
	ids    CallIDs
	defs   toolDefs
}

// NewOpenAI builds the client.
func NewOpenAI(cfg Config) *OpenAI {
	var hc *http.Client
	cfg.IdleTimeout, hc = cfg.network()
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	extra := cfg.ExtraBody
	if f := thinkingField(cfg.Thinking); f != nil {
		extra = maps.Clone(extra)
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra["thinking"] = f
	}
	oc.HTTPClient = &transport{next: hc, extra: extra, headers: cfg.Headers}
	// Keep-alive comment lines are legal SSE; a provider may send thousands while it thinks.
	oc.EmptyMessagesLimit = 1 << 30
	return &OpenAI{client: openai.NewClientWithConfig(oc), cfg: cfg}
}

// defaultIdle is the idle timeout of a Config that sets none.
const defaultIdle = 120 * time.Second

// network is the idle timeout and the HTTP client of every protocol's client: cfg's, or
// the defaults where it leaves them out.
func (cfg Config) network() (time.Duration, *http.Client) {
	idle := cfg.IdleTimeout
	if idle <= 0 {
		idle = defaultIdle
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := NewTransport(idle)
		tr.DialContext = cfg.Predial.wrap(tr.DialContext)
		hc = &http.Client{Transport: tr}
	}
	return idle, hc
}

// NewTransport returns the network transport the client uses when Config has no
// HTTPClient: response headers must come within idle (a stalled provider is retried).
// A caller that wraps it (recording a cassette) passes the wrapped one as HTTPClient.
func NewTransport(idle time.Duration) *http.Transport {
	if idle <= 0 {
		idle = defaultIdle
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = idle
	tr.DialContext = newDialer().DialContext
	return tr
}

// Stream implements Model.
func (o *OpenAI) Stream(ctx context.Context, req Request, h Handler) (Reply, error) {
	ctx, x := withExchange(ctx)
	x.size = NewReplyMeter(o.cfg.MaxReplyBytes)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// The idle timer cancels the request when the stream goes silent; every chunk resets it.
	idle := time.AfterFunc(o.cfg.IdleTimeout, func() { cancel(ErrStreamIdle) })
	defer idle.Stop()

	body, extra := o.request(req)
	x.msgExtra = extra
	var err error
	if len(body.Tools) > 0 {
		x.tools, err = o.defs.encode(req.Tools)
	}
	var stream *openai.ChatCompletionStream
	if err == nil {
		stream, err = o.client.CreateChatCompletionStream(ctx, body)
	}
	if err != nil {
		return Reply{}, o.wrap(ctx, x, err)
	}
	defer stream.Close()

	rr := &replyReader{h: h, key: o.cfg.ReasoningKey, asm: newAssembler(o.ids.New, h.ToolCall), size: x.size}
	for {
		// The raw line, not go-openai's struct: see rawChunk for what the struct drops.
		line, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = rr.add(line)
		}
		if err != nil {
			return partial(rr.reply(), rr.asm), o.wrap(ctx, x, midStream(err))
		}
		idle.Reset(o.cfg.IdleTimeout)
		if rr.errDoc != nil {
			// An error object beside the choices (OpenRouter's mid-stream error) before
			// the reply finished: the reply is cut, and the object says why.
			return partial(rr.reply(), rr.asm), o.wrap(ctx, x, ProviderErrorOf(0, rr.errDoc, nil))
		}
	}
	if !rr.finished {
		if err := rr.end(x); err != nil {
			return partial(rr.reply(), rr.asm), o.wrap(ctx, x, midStream(err))
		}
	}
	reply := rr.reply()
	if !rr.finished {
		// An error object go-openai could not read ends the stream without a reply.
		return partial(reply, rr.asm), o.wrap(ctx, x, ErrIncompleteStream)
	}
	if reply.FinishReason == "error" {
		// OpenRouter's mark of an upstream failure mid-stream: a cut reply, retried like
		// one; the error object, when one came, says what happened.
		return partial(reply, rr.asm), o.wrap(ctx, x, fmt.Errorf("%w: finish_reason error", ErrIncompleteStream))
	}
	if !knownFinish(reply.FinishReason) {
		// A content filter or an out-of-resources stop: what arrived is not an answer.
		return partial(reply, rr.asm), &FinishError{Reason: reply.FinishReason}
	}
	reply.ToolCalls = rr.asm.finish()
	if strings.TrimSpace(reply.Text) == "" && len(reply.ToolCalls) == 0 {
		return reply, ErrEmptyReply
	}
	return reply, nil
}

// partial is what survives of a broken stream: the tool calls that were complete and
// already handed out (they may be running).
func partial(r Reply, asm *assembler) Reply {
	r.ToolCalls = asm.dispatchedCalls()
	return r
}

// midStream marks a transport or decoding failure after the stream began as an incomplete
// reply; provider error objects, a reply cut for its size and cancellations keep their
// identity.
func midStream(err error) error {
	var apiErr *openai.APIError
	var pe *ProviderError
	if errors.As(err, &apiErr) || errors.As(err, &pe) || errors.Is(err, ErrIncompleteStream) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrIncompleteStream, err)
}

// wrap classifies an error and attaches the provider's Retry-After. What the transport saw
// wins over go-openai's reading: the real HTTP status and a lenient parse of the body, or
// the error object found inside the stream.
func (o *OpenAI) wrap(ctx context.Context, x *exchange, err error) error {
	return classify(ctx, x, o.cfg.IdleTimeout, fromOpenAI(err))
}

// ProviderErrorOf builds the error for an answer with status (0: inside a stream) and body;
// what go-openai made of it (read, nil for clients without go-openai) fills in what the
// body lacks.
func ProviderErrorOf(status int, body []byte, read error) *ProviderError {
	b := parseErrorBody(body)
	pe := &ProviderError{StatusCode: status, Message: b.Message, Code: b.Code, Type: b.Type, Provider: b.Provider, Raw: b.Raw, RetryAfter: -1}
	if b.RetryMS > 0 {
		pe.RetryAfter = b.RetryMS // Google's RetryInfo; a Retry-After header wins (wrap)
	}
	var prev *ProviderError
	if errors.As(read, &prev) {
		pe.Message = FirstSet(pe.Message, prev.Message)
		pe.Code = FirstSet(pe.Code, prev.Code)
		pe.Type = FirstSet(pe.Type, prev.Type)
	}
	return pe
}

var _ Model = (*OpenAI)(nil)
