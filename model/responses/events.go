package responses

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// responsesEvent is one streamed Responses API event. Only the fields kimi-run reads are
// decoded; deltas are kept raw so an event type with a delta of another kind (audio, say)
// cannot fail the stream.
type responsesEvent struct {
	Type         string             `json:"type"`
	OutputIndex  *int               `json:"output_index"`
	SummaryIndex int                `json:"summary_index"`
	ContentIndex int                `json:"content_index"`
	Delta        json.RawMessage    `json:"delta"`
	Arguments    *string            `json:"arguments"`
	Item         json.RawMessage    `json:"item"`
	Response     *responsesResponse `json:"response"`
	// An error event: {"type":"error","code":…,"message":…}, or its error nested.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// responsesResponse is the response object of response.completed, .incomplete and .failed,
// and the whole answer of a server that ignored stream:true.
type responsesResponse struct {
	Status            string            `json:"status"`
	Output            []json.RawMessage `json:"output"`
	Usage             *responsesUsage   `json:"usage"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error json.RawMessage `json:"error"`
}

type responsesUsage struct {
	InputTokens  model.LenientInt `json:"input_tokens"`
	OutputTokens model.LenientInt `json:"output_tokens"`
	InputDetails *struct {
		CachedTokens model.LenientInt `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputDetails *struct {
		ReasoningTokens model.LenientInt `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *responsesUsage) tokens() model.TokenUsage {
	t := model.TokenUsage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens)}
	if d := u.InputDetails; d != nil {
		t.CachedTokens = int(d.CachedTokens)
	}
	if d := u.OutputDetails; d != nil {
		t.ReasoningTokens = int(d.ReasoningTokens)
	}
	return t
}

// responsesItem is an output item: a message, a function call or reasoning.
type responsesItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesCall is a function call being streamed.
type responsesCall struct {
	index      int
	id, name   string
	args       string
	dispatched bool
}

// responsesReader folds the events of one reply into a Reply. Output items are keyed by
// their output_index: a server may finish them out of order (OpenRouter ends the
// reasoning after the message).
type responsesReader struct {
	h     model.Handler
	size  *model.ReplyMeter
	newID func() string

	text, thinking strings.Builder
	textAt         map[int]bool // items whose text came as deltas
	thinkAt        map[int]bool // items whose reasoning came as deltas
	doneAt         map[int]bool // items that were finished
	lastText       int          // the item the last text delta belonged to
	lastThink      [2]int       // the item and summary part of the last reasoning delta
	calls          []*responsesCall
	reasoning      map[int]json.RawMessage // reasoning items kept, without their ids
	usedIDs        map[string]bool

	usage    model.TokenUsage
	finished bool
	finish   string // stop, tool_calls or length
	refused  string // an incomplete reply's reason other than the token limit
	failure  []byte // an error document: response.failed or an error event
}

func newResponsesReader(h model.Handler, size *model.ReplyMeter, newID func() string) *responsesReader {
	return &responsesReader{h: h, size: size, newID: newID, textAt: map[int]bool{}, thinkAt: map[int]bool{}, doneAt: map[int]bool{},
		lastText: -1, lastThink: [2]int{-1, -1}, reasoning: map[int]json.RawMessage{}, usedIDs: map[string]bool{}}
}

// add reads one event.
func (r *responsesReader) add(payload []byte) error {
	var e responsesEvent
	if err := json.Unmarshal(payload, &e); err != nil {
		return fmt.Errorf("decode stream event: %w", err)
	}
	idx := -1
	if e.OutputIndex != nil {
		idx = *e.OutputIndex
	}
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		return r.addText(idx, model.JSONText(e.Delta), true)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return r.addThinking(idx, e.SummaryIndex+e.ContentIndex, model.JSONText(e.Delta), true)
	case "response.output_item.added":
		var it responsesItem
		if json.Unmarshal(e.Item, &it) == nil && it.Type == "function_call" {
			c := r.call(idx)
			c.id, c.name = model.FirstSet(c.id, it.CallID), model.FirstSet(c.name, it.Name)
			return r.setArgs(c, it.Arguments)
		}
	case "response.function_call_arguments.delta":
		c := r.call(idx)
		d := model.JSONText(e.Delta)
		c.args += d
		return r.size.Add(len(d))
	case "response.function_call_arguments.done":
		if e.Arguments != nil {
			return r.setArgs(r.call(idx), *e.Arguments)
		}
	case "response.output_item.done":
		return r.itemDone(idx, e.Item)
	case "response.completed", "response.incomplete", "response.failed":
		if e.Response == nil {
			e.Response = &responsesResponse{Status: strings.TrimPrefix(e.Type, "response.")}
		}
		if e.Response.Status == "" {
			e.Response.Status = strings.TrimPrefix(e.Type, "response.")
		}
		if e.Type == "response.failed" && len(e.Response.Error) == 0 {
			e.Response.Error = e.Error
		}
		return r.end(e.Response)
	case "error":
		r.failure = errorEvent(e)
	}
	return nil
}

// errorEvent is the error document of an error event, in the shape parseErrorBody reads.
func errorEvent(e responsesEvent) []byte {
	if len(e.Error) > 0 && string(e.Error) != "null" {
		doc, _ := json.Marshal(map[string]json.RawMessage{"error": e.Error})
		return doc
	}
	doc, _ := json.Marshal(map[string]any{"error": map[string]any{"code": json.RawMessage(orNull(e.Code)), "message": e.Message}})
	return doc
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// addText adds answer text from item idx; the text of a new message item is set apart
// from what came before by a blank line.
func (r *responsesReader) addText(idx int, s string, delta bool) error {
	if s == "" {
		return nil
	}
	if err := r.size.Add(len(s)); err != nil {
		return err
	}
	if delta {
		r.textAt[idx] = true
	}
	if r.text.Len() > 0 && idx != r.lastText {
		s = "\n\n" + s
	}
	r.lastText = idx
	r.text.WriteString(s)
	if r.h.Text != nil {
		r.h.Text(s)
	}
	return nil
}

// addThinking adds reasoning text from summary part (or content part) part of item idx;
// a new part or item is set apart by a blank line.
func (r *responsesReader) addThinking(idx, part int, s string, delta bool) error {
	if s == "" {
		return nil
	}
	if err := r.size.Add(len(s)); err != nil {
		return err
	}
	if delta {
		r.thinkAt[idx] = true
	}
	if r.thinking.Len() > 0 && r.lastThink != [2]int{idx, part} {
		s = "\n\n" + s
	}
	r.lastThink = [2]int{idx, part}
	r.thinking.WriteString(s)
	if r.h.Thinking != nil {
		r.h.Thinking(s)
	}
	return nil
}

// call returns the function call of output item idx, opening it when it is new.
func (r *responsesReader) call(idx int) *responsesCall {
	for _, c := range r.calls {
		if c.index == idx {
			return c
		}
	}
	c := &responsesCall{index: idx}
	r.calls = append(r.calls, c)
	return c
}

// setArgs takes a call's whole arguments (from added, done or the finished item), which
// win over the deltas; the meter counts what they add.
func (r *responsesReader) setArgs(c *responsesCall, args string) error {
	if args == "" || args == c.args {
		return nil
	}
	if n := len(args) - len(c.args); n > 0 {
		if err := r.size.Add(n); err != nil {
			return err
		}
	}
	c.args = args
	return nil
}

// itemDone takes a finished output item: a call is complete and handed out, a message's
// text is taken if it did not stream, a reasoning item is kept to go back.
func (r *responsesReader) itemDone(idx int, raw json.RawMessage) error {
	var it responsesItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return fmt.Errorf("decode output item: %w", err)
	}
	if r.doneAt[idx] {
		return nil
	}
	r.doneAt[idx] = true
	switch it.Type {
	case "function_call":
		c := r.call(idx)
		c.id, c.name = model.FirstSet(it.CallID, c.id), model.FirstSet(it.Name, c.name)
		if err := r.setArgs(c, it.Arguments); err != nil {
			return err
		}
		r.dispatch(c)
	case "message":
		if !r.textAt[idx] {
			for _, p := range it.Content {
				if err := r.addText(idx, p.Text+p.Refusal, false); err != nil {
					return err
				}
			}
		}
	case "reasoning":
		kept, n := keptReasoning(raw)
		if err := r.size.Add(n); err != nil {
			return err
		}
		r.reasoning[idx] = kept
		if !r.thinkAt[idx] {
			for i, s := range it.Summary {
				if err := r.addThinking(idx, i, s.Text, false); err != nil {
					return err
				}
			}
			for i, p := range it.Content {
				if err := r.addThinking(idx, len(it.Summary)+i, p.Text, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// keptReasoning is a reasoning item as it goes back: without id and status (with store
// false they name nothing the provider keeps); n is its size, for the reply's meter.
func keptReasoning(raw json.RawMessage) (json.RawMessage, int) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw, len(raw)
	}
	delete(fields, "id")
	delete(fields, "status")
	b, err := json.Marshal(fields)
	if err != nil {
		return raw, len(raw)
	}
	return b, len(b)
}

// dispatch hands a complete call to the handler, once, with an id unique in the reply.
func (r *responsesReader) dispatch(c *responsesCall) {
	if c.dispatched {
		return
	}
	if c.id == "" || r.usedIDs[c.id] {
		c.id = r.newID()
	}
	r.usedIDs[c.id] = true
	c.dispatched = true
	if r.h.ToolCall != nil {
		r.h.ToolCall(model.CallSpec{ID: c.id, Name: c.name, Arguments: c.args})
	}
}

// end takes the final response: its usage, the items the stream did not finish (all of
// them when the answer came as one document), and how it ended.
func (r *responsesReader) end(resp *responsesResponse) error {
	if resp.Usage != nil {
		r.usage = resp.Usage.tokens()
	}
	if resp.Status == "failed" {
		doc, _ := json.Marshal(map[string]json.RawMessage{"error": orNull(resp.Error)})
		if len(resp.Error) == 0 || string(resp.Error) == "null" {
			doc = []byte(`{"error":{"message":"the provider reports the response failed"}}`)
		}
		r.failure = doc
		return nil
	}
	for i, raw := range resp.Output {
		if r.seen(i) {
			continue
		}
		if err := r.itemDone(i, raw); err != nil {
			return err
		}
	}
	r.finished = true
	switch {
	case resp.Status == "incomplete":
		reason := "incomplete"
		if d := resp.IncompleteDetails; d != nil && d.Reason != "" {
			reason = d.Reason
		}
		if reason == "max_output_tokens" {
			r.finish = "length"
		} else {
			r.refused = reason
		}
	case len(r.calls) > 0:
		r.finish = "tool_calls"
	default:
		r.finish = "stop"
	}
	return nil
}

// seen reports whether output item i already came through the stream: finished, or its
// text or reasoning streamed (a server may finish an item only in the final response).
func (r *responsesReader) seen(i int) bool {
	return r.doneAt[i] || r.textAt[i] || r.thinkAt[i]
}

// reply is what was read so far; final hands out every call (a cut stream keeps only the
// calls already handed out).
func (r *responsesReader) reply(final bool) model.Reply {
	rep := model.Reply{Text: r.text.String(), Reasoning: r.thinking.String(), FinishReason: r.finish, Usage: r.usage}
	slices.SortStableFunc(r.calls, func(a, b *responsesCall) int { return a.index - b.index })
	for _, c := range r.calls {
		if final {
			r.dispatch(c)
		}
		if c.dispatched {
			rep.ToolCalls = append(rep.ToolCalls, model.CallSpec{ID: c.id, Name: c.name, Arguments: c.args})
		}
	}
	if len(r.reasoning) > 0 {
		idx := make([]int, 0, len(r.reasoning))
		for i := range r.reasoning {
			idx = append(idx, i)
		}
		slices.Sort(idx)
		items := make([]json.RawMessage, 0, len(idx))
		for _, i := range idx {
			items = append(items, r.reasoning[i])
		}
		if b, err := json.Marshal(items); err == nil {
			rep.ReasoningField, rep.ReasoningDetails = ReasoningField, b
		}
	}
	return rep
}
