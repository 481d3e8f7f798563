package walkwire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// event is one data line of the stream.
type event struct {
	Text     *string `json:"text"`
	Thinking *string `json:"thinking"`
	Call     *struct {
		Index               int
		ID, Name, Arguments string
	} `json:"call"`
	Finish string `json:"finish"`
	Usage  *struct {
		Input, Output, Cached model.LenientInt
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// reader folds the events into a reply.
type reader struct {
	h              model.Handler
	size           *model.ReplyMeter
	newID          func() string
	text, thinking strings.Builder
	calls          []model.CallSpec
	byIndex        map[int]int
	finish         string
	usage          model.TokenUsage
	errDoc         []byte
}

func (r *reader) add(data []byte) error {
	var e event
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("decode stream event: %w", err)
	}
	switch {
	case e.Error != nil:
		r.errDoc = data
	case e.Text != nil:
		if err := r.size.Add(len(*e.Text)); err != nil {
			return err
		}
		r.text.WriteString(*e.Text)
		if r.h.Text != nil {
			r.h.Text(*e.Text)
		}
	case e.Thinking != nil:
		if err := r.size.Add(len(*e.Thinking)); err != nil {
			return err
		}
		r.thinking.WriteString(*e.Thinking)
		if r.h.Thinking != nil {
			r.h.Thinking(*e.Thinking)
		}
	case e.Call != nil:
		if err := r.size.Add(len(e.Call.Name) + len(e.Call.Arguments)); err != nil {
			return err
		}
		if r.byIndex == nil {
			r.byIndex = map[int]int{}
		}
		i, ok := r.byIndex[e.Call.Index]
		if !ok {
			i = len(r.calls)
			r.byIndex[e.Call.Index] = i
			r.calls = append(r.calls, model.CallSpec{})
		}
		c := &r.calls[i]
		c.ID = model.FirstSet(c.ID, e.Call.ID)
		if e.Call.Name != c.Name {
			c.Name += e.Call.Name
		}
		c.Arguments += e.Call.Arguments
	case e.Finish != "":
		r.finish = e.Finish
	case e.Usage != nil:
		r.usage = model.TokenUsage{InputTokens: int(e.Usage.Input), OutputTokens: int(e.Usage.Output), CachedTokens: int(e.Usage.Cached)}
	}
	return nil
}

// reply is the reply so far, its calls with ids unique within it.
func (r *reader) reply() model.Reply {
	seen := map[string]bool{}
	for i := range r.calls {
		if c := &r.calls[i]; c.ID == "" || seen[c.ID] {
			c.ID = r.newID()
		}
		seen[r.calls[i].ID] = true
	}
	return model.Reply{Text: r.text.String(), Reasoning: r.thinking.String(), ToolCalls: r.calls, FinishReason: r.finish, Usage: r.usage}
}

// result judges the whole stream once it ended: the reply, or why there is none.
func (r *reader) result() (model.Reply, error) {
	rep := r.reply()
	switch {
	case r.errDoc != nil:
		return rep, model.ProviderErrorOf(0, r.errDoc, nil)
	case r.finish == "":
		return rep, model.ErrIncompleteStream
	case r.finish != "stop" && r.finish != "tool_calls" && r.finish != "length":
		return rep, &model.FinishError{Reason: r.finish}
	case strings.TrimSpace(rep.Text) == "" && len(rep.ToolCalls) == 0:
		return rep, model.ErrEmptyReply
	}
	for _, c := range rep.ToolCalls {
		if r.h.ToolCall != nil {
			r.h.ToolCall(c)
		}
	}
	return rep, nil
}
