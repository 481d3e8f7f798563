package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// stored is the turn's blocks so far as they are stored and sent back (see
// ReasoningField), and whether the turn needs them: it has a block that must go back
// unchanged (thinking, redacted thinking, a kind kimi-run does not know). A turn of text
// and tool calls is rebuilt from the message alone.
func (r *anthropicReader) stored() (out []block, needed bool) {
	out = make([]block, 0, len(r.blocks))
	for _, b := range r.blocks {
		switch b.kind {
		case "text":
			out = append(out, block{"type": "text", "text": b.text.String()})
		case "thinking":
			out = append(out, block{"type": "thinking", "thinking": b.text.String(), "signature": b.sig.String()})
			needed = true
		case "redacted_thinking":
			out = append(out, block{"type": "redacted_thinking", "data": b.data})
			needed = true
		case "tool_use":
			if b.done {
				out = append(out, block{"type": "tool_use", "id": b.call.ID})
			}
		default:
			if b.other != nil {
				out = append(out, b.other)
				needed = true
			}
		}
	}
	return out, needed
}

// reply is what was read so far.
func (r *anthropicReader) reply() model.Reply {
	var text, thought strings.Builder
	for _, b := range r.blocks {
		switch b.kind {
		case "text":
			text.WriteString(b.text.String())
		case "thinking":
			thought.WriteString(b.text.String())
		}
	}
	rep := model.Reply{Text: text.String(), Reasoning: thought.String(), Usage: r.totalUsage()}
	if bs, needed := r.stored(); needed {
		if raw, err := json.Marshal(bs); err == nil {
			rep.ReasoningField, rep.ReasoningDetails = ReasoningField, raw
		}
	}
	return rep
}

// sentBack is the turn so far as the next request of a paused turn carries it.
func (r *anthropicReader) sentBack() []block {
	bs, _ := r.stored()
	raw, _ := json.Marshal(bs)
	return assistantBlocks(model.Message{Role: model.RoleAssistant, Content: r.reply().Text, ToolCalls: r.calls(),
		ReasoningField: ReasoningField, ReasoningDetails: raw})
}
