package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// rawChunk is one streamed chunk as providers really send it. go-openai's struct has no
// room for usage inside a choice (Moonshot), usage under x_groq (Groq), a top-level
// usage.cached_tokens (Moonshot), reasoning or reasoning_details (OpenRouter), or an error
// object beside the choices (OpenRouter's mid-stream errors), so the client decodes the
// raw data line itself.
type rawChunk struct {
	Choices []rawChoice     `json:"choices"`
	Usage   *rawUsage       `json:"usage"`
	XGroq   *rawXGroq       `json:"x_groq"`
	Error   json.RawMessage `json:"error"`
}

type rawXGroq struct {
	Usage *rawUsage `json:"usage"`
}

type rawChoice struct {
	Index        int       `json:"index"`
	Delta        rawDelta  `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
	Usage        *rawUsage `json:"usage"`
}

type rawDelta struct {
	// Content is a string, or a list of typed parts (Mistral's thinking models).
	Content          *contentParts     `json:"content"`
	ReasoningContent *string           `json:"reasoning_content"`
	Reasoning        *string           `json:"reasoning"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
	ToolCalls        []openai.ToolCall `json:"tool_calls"`
}

// rawUsage reads every usage shape seen in the wild: cached tokens at the top level
// (Moonshot) or in prompt_tokens_details (OpenAI), reasoning tokens in
// completion_tokens_details. Counts are read leniently (a float or a string still counts).
type rawUsage struct {
	PromptTokens     LenientInt `json:"prompt_tokens"`
	CompletionTokens LenientInt `json:"completion_tokens"`
	CachedTokens     LenientInt `json:"cached_tokens"`
	PromptDetails    *struct {
		CachedTokens LenientInt `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionDetails *struct {
		ReasoningTokens LenientInt `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *rawUsage) tokens() TokenUsage {
	t := TokenUsage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens), CachedTokens: int(u.CachedTokens)}
	if d := u.PromptDetails; d != nil && t.CachedTokens == 0 {
		t.CachedTokens = int(d.CachedTokens)
	}
	if d := u.CompletionDetails; d != nil {
		t.ReasoningTokens = int(d.ReasoningTokens)
	}
	return t
}

// LenientInt is a token count sent as a number, a float or a numeric string; anything
// else counts as 0 rather than failing the whole chunk.
type LenientInt int

func (n *LenientInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
		*n = LenientInt(f)
	}
	return nil
}

// Reasoning fields a reply's reasoning can come in, and goes back in.
const (
	ReasoningContent = "reasoning_content" // Moonshot, DeepSeek, vLLM
	ReasoningText    = "reasoning"         // OpenRouter's plain-text field
	ReasoningDetails = "reasoning_details" // OpenRouter's structured blocks
	// ReasoningParts is thinking sent as parts of the content, {"type":"thinking",
	// "thinking":[{"type":"text","text":…}]} (Mistral's magistral), and sent back so.
	ReasoningParts = "thinking_parts"
)

// replyReader folds decoded chunks into a Reply.
type replyReader struct {
	h        Handler
	key      *string // the provider's reasoning_key (reasoningkey.go); nil reads every field
	size     *ReplyMeter
	asm      *assembler
	text     strings.Builder
	thinking strings.Builder
	field    string // the reasoning field seen, strongest last: details > reasoning_content > reasoning
	details  detailMerger
	usage    TokenUsage
	usageSet bool // usage came from the top level, x_groq or choice 0: later choices do not replace it
	finish   string
	finished bool
	errDoc   json.RawMessage // an error object that came before any finish_reason
}

// add reads one data line.
func (r *replyReader) add(line []byte) error {
	var c rawChunk
	if err := json.Unmarshal(line, &c); err != nil {
		return fmt.Errorf("decode stream chunk: %w", err)
	}
	if r.key != nil {
		keepReasoning(*r.key, &c, line)
	}
	return r.addChunk(c)
}

// rawCompletion is a whole chat completion sent as one JSON document.
type rawCompletion struct {
	Choices []struct {
		Index        int       `json:"index"`
		Message      rawDelta  `json:"message"`
		FinishReason *string   `json:"finish_reason"`
		Usage        *rawUsage `json:"usage"`
	} `json:"choices"`
	Usage *rawUsage `json:"usage"`
}

// end reads what a stream that ended without a finish_reason left in the exchange: the
// whole reply as one JSON document (a server that ignored stream:true), or the end mark
// `data: [DONE]`. Either ends a reply that had no finish_reason (Snowflake Cortex sends
// none, or an empty one): a stop, or tool calls if it carried any. A stream cut without
// either stays unfinished.
func (r *replyReader) end(x *exchange) error {
	doc := x.plainReply()
	if doc != nil {
		var c rawCompletion
		if err := json.Unmarshal(doc, &c); err != nil {
			return fmt.Errorf("decode the reply sent as one JSON document: %w", err)
		}
		chunk := rawChunk{Usage: c.Usage}
		for _, ch := range c.Choices {
			chunk.Choices = append(chunk.Choices, rawChoice{Index: ch.Index, Delta: ch.Message, FinishReason: ch.FinishReason, Usage: ch.Usage})
		}
		if r.key != nil {
			keepReasoning(*r.key, &chunk, nil) // a field of its own name is read from deltas only
		}
		if err := r.addChunk(chunk); err != nil {
			return err
		}
	}
	if !r.finished && (doc != nil || x.sawDone()) {
		r.finished, r.finish = true, "stop"
		if len(r.asm.calls) > 0 {
			r.finish = "tool_calls"
		}
	}
	return nil
}

// addChunk folds one decoded chunk in.
func (r *replyReader) addChunk(c rawChunk) error {
	if len(c.Error) > 0 && !bytes.Equal(bytes.TrimSpace(c.Error), []byte("null")) && !r.finished {
		r.errDoc = c.Error
	}
	r.takeUsage(c.Usage, true)
	if c.XGroq != nil {
		r.takeUsage(c.XGroq.Usage, true)
	}
	for _, ch := range c.Choices {
		r.takeUsage(ch.Usage, ch.Index == 0)
		if ch.Index != 0 {
			continue // kimi-run asks for one choice; a second is some proxy's echo
		}
		if err := r.delta(ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			r.finished = true
			r.finish = *ch.FinishReason
		}
	}
	return nil
}

// takeUsage keeps the last usage that says something; a usage from a choice other than
// the first only fills in when nothing better came.
func (r *replyReader) takeUsage(u *rawUsage, primary bool) {
	if u == nil {
		return
	}
	t := u.tokens()
	if t.InputTokens == 0 && t.OutputTokens == 0 {
		return // some gateways send zeros in every chunk
	}
	if !primary && r.usageSet {
		return
	}
	r.usage = t
	r.usageSet = r.usageSet || primary
}

func (r *replyReader) delta(d rawDelta) error {
	if err := r.size.Add(d.size()); err != nil {
		return err
	}
	// One chunk may carry the same thought in several fields (OpenRouter sends reasoning
	// and reasoning_details together): show it once.
	think := ""
	switch {
	case d.ReasoningContent != nil && *d.ReasoningContent != "":
		think = *d.ReasoningContent
		r.setField(ReasoningContent)
	case d.Reasoning != nil && *d.Reasoning != "":
		think = *d.Reasoning
		r.setField(ReasoningText)
	}
	if len(d.ReasoningDetails) > 0 {
		r.setField(ReasoningDetails)
		for _, raw := range d.ReasoningDetails {
			if t := r.details.add(raw); think == "" {
				think = t
			}
		}
	}
	if think != "" {
		r.thinking.WriteString(think)
		if r.h.Thinking != nil {
			r.h.Thinking(think)
		}
	}
	if d.Content != nil && d.Content.thinking != "" {
		// Thinking parts of the content (Mistral) go back as such; a field of its own,
		// if one also came, still wins for the thinking shown.
		r.setField(ReasoningParts)
		if think == "" {
			r.thinking.WriteString(d.Content.thinking)
			if r.h.Thinking != nil {
				r.h.Thinking(d.Content.thinking)
			}
		}
	}
	if d.Content != nil && d.Content.text != "" {
		r.text.WriteString(d.Content.text)
		if r.h.Text != nil {
			r.h.Text(d.Content.text)
		}
	}
	if len(d.ToolCalls) > 0 {
		r.asm.add(d.ToolCalls)
	}
	return nil
}

// size is what d adds to the reply: content, reasoning in every field it came in, tool
// names and arguments.
func (d *rawDelta) size() int {
	n := 0
	if d.Content != nil {
		n += len(d.Content.text) + len(d.Content.thinking)
	}
	for _, s := range []*string{d.ReasoningContent, d.Reasoning} {
		if s != nil {
			n += len(*s)
		}
	}
	for _, raw := range d.ReasoningDetails {
		n += len(raw)
	}
	for _, c := range d.ToolCalls {
		n += len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

// setField records where reasoning came from; structured details win, as they are what
// must go back unchanged, and a reasoning field wins over thinking parts of the content.
func (r *replyReader) setField(f string) {
	if r.field == ReasoningDetails {
		return
	}
	if f == ReasoningDetails || r.field == "" || r.field == ReasoningParts ||
		(f == ReasoningContent && r.field == ReasoningText) {
		r.field = f
	}
}

// reply is what was read so far.
func (r *replyReader) reply() Reply {
	rep := Reply{Text: r.text.String(), Reasoning: r.thinking.String(), FinishReason: r.finish, Usage: r.usage, ReasoningField: r.field}
	if r.field == ReasoningDetails {
		rep.ReasoningDetails = r.details.json()
	}
	return rep
}

// detailMerger puts streamed reasoning_details fragments back together: fragments with
// the same type and index are one block, their text, summary and data are concatenated
// and their other fields (signature, format, id) keep the last value set.
type detailMerger struct {
	blocks []map[string]json.RawMessage
	keys   []string
}

// add merges one fragment and returns the text it adds, for the thinking event.
func (m *detailMerger) add(raw json.RawMessage) string {
	var frag map[string]json.RawMessage
	if json.Unmarshal(raw, &frag) != nil || frag == nil {
		return ""
	}
	key := JSONText(frag["type"]) + "\x00" + JSONText(frag["index"])
	i := -1
	for j, k := range m.keys {
		if k == key {
			i = j
		}
	}
	if i < 0 {
		m.keys = append(m.keys, key)
		m.blocks = append(m.blocks, map[string]json.RawMessage{})
		i = len(m.blocks) - 1
	}
	block := m.blocks[i]
	added := ""
	for k, v := range frag {
		switch k {
		case "text", "summary", "data":
			var s string
			if json.Unmarshal(v, &s) != nil {
				if _, ok := block[k]; !ok {
					block[k] = v
				}
				continue
			}
			var prev string
			_ = json.Unmarshal(block[k], &prev)
			joined, _ := json.Marshal(prev + s)
			block[k] = joined
			if k != "data" && added == "" {
				added = s
			}
		default:
			if string(v) == "null" || string(v) == `""` {
				if _, ok := block[k]; ok {
					continue
				}
			}
			block[k] = v
		}
	}
	return added
}

func (m *detailMerger) json() json.RawMessage {
	if len(m.blocks) == 0 {
		return nil
	}
	b, err := json.Marshal(m.blocks)
	if err != nil {
		return nil
	}
	return b
}
