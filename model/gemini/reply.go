package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// ReasoningField is the ReasoningField of a reply from Gemini: its ReasoningDetails are
// the thought signatures (geminiSignatures) that must go back with the turn.
const ReasoningField = "gemini_signatures"

// geminiSignatures are the thought signatures of one model turn, by the part they came on:
// each function call's by call id, the answer text's and the thought text's. Gemini 3
// refuses a conversation whose current turn lost a function call's signature; the others
// keep its reasoning on track when they go back.
type geminiSignatures struct {
	Calls   map[string]string `json:"calls,omitempty"`
	Text    string            `json:"text,omitempty"`
	Thought string            `json:"thought,omitempty"`
}

func (s *geminiSignatures) empty() bool {
	return len(s.Calls) == 0 && s.Text == "" && s.Thought == ""
}

// geminiReader folds the streamed chunks of one reply.
type geminiReader struct {
	h     model.Handler
	size  *model.ReplyMeter
	newID func() string

	said     strings.Builder
	thinking strings.Builder
	calls    []model.CallSpec
	ids      map[string]bool
	sigs     geminiSignatures
	usage    model.TokenUsage

	finish    string // the candidate's finishReason, as Gemini spells it
	finishMsg string
	blocked   *geminiPromptFeedback
	errDoc    json.RawMessage // an error object that came in the stream
}

func newGeminiReader(h model.Handler, size *model.ReplyMeter, newID func() string) *geminiReader {
	return &geminiReader{h: h, size: size, newID: newID, ids: map[string]bool{}}
}

// add reads one data line.
func (r *geminiReader) add(line []byte) error {
	var c geminiChunk
	if err := json.Unmarshal(line, &c); err != nil {
		return fmt.Errorf("decode stream chunk: %w", err)
	}
	if len(c.Error) > 0 && !bytes.Equal(bytes.TrimSpace(c.Error), []byte("null")) {
		if r.finish == "" {
			r.errDoc = line // after the finish, the reply is whole: an error then is noise
		}
		return nil
	}
	if u := c.UsageMetadata; u != nil {
		if t := u.tokens(); t.InputTokens > 0 || t.OutputTokens > 0 {
			r.usage = t // each chunk carries the running total; the last one is the reply's
		}
	}
	if pf := c.PromptFeedback; pf != nil && pf.BlockReason != "" {
		r.blocked = pf
	}
	for _, cand := range c.Candidates {
		if cand.Index != 0 {
			continue // kimi-run asks for one candidate
		}
		if cand.Content != nil {
			for _, p := range cand.Content.Parts {
				if err := r.part(p); err != nil {
					return err
				}
			}
		}
		if cand.FinishReason != "" {
			r.finish, r.finishMsg = cand.FinishReason, cand.FinishMessage
		}
	}
	return nil
}

// addPlain reads a whole answer sent as one JSON document: an array of the streamed
// objects, or one object.
func (r *geminiReader) addPlain(doc []byte) error {
	var list []json.RawMessage
	if json.Unmarshal(doc, &list) != nil {
		return r.add(doc)
	}
	for _, c := range list {
		if err := r.add(c); err != nil {
			return err
		}
	}
	return nil
}

// part reads one part: a function call, a thought, text, or a signature alone.
func (r *geminiReader) part(p geminiPart) error {
	switch {
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		if err := r.size.Add(len(fc.ID) + len(fc.Name) + len(fc.Args)); err != nil {
			return err
		}
		if fc.Name == "" {
			return nil // a call without a name cannot be run or answered
		}
		id := fc.ID
		if id == "" || r.ids[id] {
			id = r.newID()
		}
		r.ids[id] = true
		args := "{}"
		if a := bytes.TrimSpace(fc.Args); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
			args = string(a)
		}
		call := model.CallSpec{ID: id, Name: fc.Name, Arguments: args}
		r.calls = append(r.calls, call)
		if p.ThoughtSignature != "" {
			if r.sigs.Calls == nil {
				r.sigs.Calls = map[string]string{}
			}
			r.sigs.Calls[id] = p.ThoughtSignature
		}
		// Gemini sends each call whole.
		if r.h.ToolCall != nil {
			r.h.ToolCall(call)
		}
	case p.Thought:
		return r.text(p, &r.thinking, &r.sigs.Thought, r.h.Thinking)
	default:
		// Text, or a part that carries only a signature (Gemini 3 ends a text answer with
		// an empty text part holding it). Other parts (code execution, inline data) are
		// not asked for and are left out.
		return r.text(p, &r.said, &r.sigs.Text, r.h.Text)
	}
	return nil
}

// text reads a part of text or thought into b, keeping its signature in sig and passing
// the text to h.
func (r *geminiReader) text(p geminiPart, b *strings.Builder, sig *string, h func(string)) error {
	text := deref(p.Text)
	if err := r.size.Add(len(text)); err != nil {
		return err
	}
	if p.ThoughtSignature != "" {
		*sig = p.ThoughtSignature
	}
	if text != "" {
		b.WriteString(text)
		if h != nil {
			h(text)
		}
	}
	return nil
}

// reply is what was read so far. FinishReason is the loop's word for Gemini's: stop,
// tool_calls or length; anything else is reported by result.
func (r *geminiReader) reply() model.Reply {
	rep := model.Reply{Text: r.said.String(), Reasoning: r.thinking.String(), ToolCalls: r.calls, Usage: r.usage}
	switch r.finish {
	case "STOP":
		rep.FinishReason = "stop"
		if len(r.calls) > 0 {
			rep.FinishReason = "tool_calls"
		}
	case "MAX_TOKENS":
		rep.FinishReason = "length"
	default:
		rep.FinishReason = strings.ToLower(r.finish)
	}
	if !r.sigs.empty() {
		if b, err := json.Marshal(r.sigs); err == nil {
			rep.ReasoningField, rep.ReasoningDetails = ReasoningField, b
		}
	}
	return rep
}

// result judges the whole stream once it ended: the reply, or why there is none.
func (r *geminiReader) result() (model.Reply, error) {
	rep := r.reply()
	switch {
	case r.errDoc != nil:
		return rep, model.ProviderErrorOf(0, r.errDoc, nil)
	case r.blocked != nil:
		// The prompt itself was refused: asking again gets the same answer.
		return rep, &model.FinishError{Reason: r.blocked.BlockReason, Detail: r.blocked.BlockReasonMessage, Prompt: true}
	case r.finish == "":
		return rep, model.ErrIncompleteStream
	}
	switch r.finish {
	case "STOP", "MAX_TOKENS":
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "MALFORMED_RESPONSE":
		// The model botched a call it meant to make: nothing to run or answer, and
		// another attempt usually comes out right.
		return rep, &model.MalformedReplyError{Reason: r.finish, Detail: r.finishMsg}
	default:
		// SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, LANGUAGE, OTHER,
		// MISSING_THOUGHT_SIGNATURE and whatever comes next: not an answer, and asking
		// the same again ends the same way.
		return rep, &model.FinishError{Reason: r.finish, Detail: r.finishMsg}
	}
	if strings.TrimSpace(rep.Text) == "" && len(rep.ToolCalls) == 0 {
		return rep, model.ErrEmptyReply
	}
	return rep, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
