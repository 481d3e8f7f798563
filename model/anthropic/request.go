package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// The Messages API's request body, as kimi-run sends it: one system block, the
// conversation as user and assistant turns of content blocks, the tools, and the
// thinking settings. Blocks are maps: thinking blocks and blocks of kinds kimi-run does not
// know go back exactly as they came, whatever fields they carry.
type anthropicRequest struct {
	Model        string            `json:"model"`
	MaxTokens    int               `json:"max_tokens"`
	System       []block           `json:"system,omitempty"`
	Messages     []anthropicTurn   `json:"messages"`
	Tools        []anthropicTool   `json:"tools,omitempty"`
	Thinking     map[string]any    `json:"thinking,omitempty"`
	OutputConfig map[string]string `json:"output_config,omitempty"`
	Stream       bool              `json:"stream"`
}

type anthropicTurn struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl map[string]any  `json:"cache_control,omitempty"`
}

// block is one content block of a turn.
type block = map[string]any

// MaxTokens is the max_tokens a request carries when nothing lower is asked for:
// the Messages API requires the field, and 32,000 is within the output limit of every
// Claude 4 model (Opus 4 and 4.1 allow 32,000, the others 64,000). Kimi CLI sends 50,000,
// which Opus 4.1 refuses.
const MaxTokens = 32000

// ReasoningField is the ReasoningField of an assistant message that came from the
// Messages API with thinking in it: its ReasoningDetails are the turn's content blocks in
// the order they streamed (thinking and redacted_thinking with their signatures, text,
// tool_use as {type, id} placeholders, and any other kind as received), so the turn goes
// back as the API requires, unchanged.
const ReasoningField = "anthropic_blocks"

// minThinkingBudget is the smallest thinking budget the API accepts.
const minThinkingBudget = 1024

// ephemeral marks a cache breakpoint (prompt caching's default five-minute cache).
func ephemeral() map[string]any { return map[string]any{"type": "ephemeral"} }

// body builds the request for req, with prior (a paused turn's blocks so far, see
// pause_turn) as the last assistant turn.
func (a *Client) body(req model.Request, prior []block) ([]byte, error) {
	r := anthropicRequest{Model: a.cfg.Model, MaxTokens: MaxTokens, Stream: true}
	if req.MaxTokens > 0 && req.MaxTokens < r.MaxTokens {
		r.MaxTokens = req.MaxTokens
	}
	msgs := model.ToolMediaAsUser(req.Messages, model.ImagesOnly)
	var system []string
	for len(msgs) > 0 && msgs[0].Role == model.RoleSystem {
		if msgs[0].Content != "" {
			system = append(system, msgs[0].Content)
		}
		msgs = msgs[1:]
	}
	if len(system) > 0 {
		// A cache breakpoint after the system prompt, the tools and the conversation's
		// end, as Kimi CLI sets them: every step re-reads the same prefix.
		r.System = []block{{"type": "text", "text": strings.Join(system, "\n\n"), "cache_control": ephemeral()}}
	}
	for _, m := range msgs {
		r.add(a.turn(m))
	}
	if len(prior) > 0 {
		r.add(anthropicTurn{Role: model.RoleAssistant, Content: prior})
	}
	markLastBlock(r.Messages)
	if !req.NoTools {
		for _, t := range req.Tools {
			r.Tools = append(r.Tools, anthropicTool{Name: t.Name(), Description: t.Description(), InputSchema: json.RawMessage(t.Schema())})
		}
		if n := len(r.Tools); n > 0 {
			r.Tools[n-1].CacheControl = ephemeral()
		}
	}
	safeToolIDs(r.Messages)
	r.Thinking, r.OutputConfig = a.thinking(r.MaxTokens)
	if r.Thinking != nil && r.Thinking["type"] != "disabled" && unthoughtToolLoop(r.Messages) {
		// The API wants the assistant turn of an unfinished tool loop to begin with its
		// thinking when thinking is on; a turn another protocol's model made (a fallback, a
		// resumed session) has none, so this request goes without.
		r.Thinking, r.OutputConfig = nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// add appends a turn, merging it into the previous one when the role is the same (the
// tool results of one step and the user text after them are one user turn).
func (r *anthropicRequest) add(t anthropicTurn) {
	if len(t.Content) == 0 {
		return // the API refuses an empty turn
	}
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == t.Role {
		r.Messages[n-1].Content = append(r.Messages[n-1].Content, t.Content...)
		return
	}
	r.Messages = append(r.Messages, t)
}

// safeToolIDs makes every tool call id one the API takes (letters, digits, _ and -): a
// conversation begun with another protocol's model carries ids such as Moonshot's
// "Shell:0". An id is replaced the same way wherever it appears, in the call and in its
// result, and the same way in every request (the prompt cache needs the same prefix); ids
// that were already safe are left as they are.
func safeToolIDs(turns []anthropicTurn) {
	safe := map[string]string{}
	taken := map[string]bool{}
	for _, t := range turns {
		for _, b := range t.Content {
			if id, ok := b["id"].(string); ok && b["type"] == "tool_use" && validToolID(id) {
				taken[id] = true
			}
		}
	}
	for _, t := range turns {
		for _, b := range t.Content {
			key := ""
			switch b["type"] {
			case "tool_use":
				key = "id"
			case "tool_result":
				key = "tool_use_id"
			default:
				continue
			}
			id, _ := b[key].(string)
			if validToolID(id) {
				continue
			}
			s, ok := safe[id]
			if !ok {
				s = safeToolID(id)
				for n := 2; taken[s]; n++ {
					s = fmt.Sprintf("%s_%d", safeToolID(id), n)
				}
				safe[id], taken[s] = s, true
			}
			b[key] = s
		}
	}
}

// validToolID reports whether the API takes id as a tool call's id.
func validToolID(id string) bool {
	if id == "" {
		return false
	}
	for _, c := range id {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// safeToolID is id with every character the API refuses made an underscore.
func safeToolID(id string) string {
	b := []byte("toolu_")
	if id != "" {
		b = b[:0]
	}
	for _, c := range []byte(id) {
		if c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}

// unthoughtToolLoop reports whether the conversation ends inside a tool loop (the last turn
// is the user's, answering tool calls) whose assistant turn does not begin with thinking:
// with thinking on, the API refuses such a request ("a final assistant message must start
// with a thinking block … To avoid this requirement, disable thinking").
func unthoughtToolLoop(turns []anthropicTurn) bool {
	n := len(turns)
	if n < 2 || turns[n-1].Role != model.RoleUser || turns[n-2].Role != model.RoleAssistant {
		return false
	}
	results := false
	for _, b := range turns[n-1].Content {
		results = results || b["type"] == "tool_result"
	}
	first := turns[n-2].Content[0]["type"]
	return results && first != "thinking" && first != "redacted_thinking"
}

// markLastBlock sets the conversation's cache breakpoint on its last block, unless that is
// a thinking block, which takes none.
func markLastBlock(turns []anthropicTurn) {
	if len(turns) == 0 {
		return
	}
	content := turns[len(turns)-1].Content
	last := content[len(content)-1]
	switch last["type"] {
	case "thinking", "redacted_thinking":
		return
	}
	// Copy: the block may be shared with a stored message.
	marked := make(block, len(last)+1)
	for k, v := range last {
		marked[k] = v
	}
	marked["cache_control"] = ephemeral()
	content[len(content)-1] = marked
}

// turn converts one message.
func (a *Client) turn(m model.Message) anthropicTurn {
	switch m.Role {
	case model.RoleSystem:
		// Only the leading system messages are the system prompt; one later in the
		// conversation is said to the model as Kimi CLI says it.
		return anthropicTurn{Role: model.RoleUser, Content: textBlocks("<system>" + m.Content + "</system>")}
	case model.RoleTool:
		content := m.Content
		if content == "" {
			content = "(no output)" // the API refuses an empty text
		}
		return anthropicTurn{Role: model.RoleUser, Content: []block{{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": content}}}
	case model.RoleAssistant:
		return anthropicTurn{Role: model.RoleAssistant, Content: assistantBlocks(m)}
	}
	var content []block
	for _, im := range m.Images {
		content = append(content, block{"type": "image", "source": map[string]any{
			"type": "base64", "media_type": im.MIME, "data": base64.StdEncoding.EncodeToString(im.Data)}})
	}
	return anthropicTurn{Role: model.RoleUser, Content: append(content, textBlocks(m.Content)...)}
}

// textBlocks is text as a turn's content; none for empty text, which the API refuses.
func textBlocks(s string) []block {
	if s == "" {
		return nil
	}
	return []block{{"type": "text", "text": s}}
}

// assistantBlocks is an assistant message's content: its stored blocks in their order when
// it has them (see ReasoningField), else its text and tool calls. The text and the
// calls come from the message, not the stored blocks: the loop may have changed a call
// (arguments that were not JSON go back as {}) or the text.
func assistantBlocks(m model.Message) []block {
	calls := make(map[string]model.CallSpec, len(m.ToolCalls))
	for _, c := range m.ToolCalls {
		calls[c.ID] = c
	}
	var out []block
	used := map[string]bool{}
	textDone := false
	if m.ReasoningField == ReasoningField {
		stored := decodeBlocks(m.ReasoningDetails)
		keepText := storedText(stored) == m.Content
		for _, b := range stored {
			switch b["type"] {
			case "text":
				switch {
				case keepText:
					out = append(out, textBlocks(jsonString(b["text"]))...)
				case !textDone:
					out = append(out, textBlocks(m.Content)...)
				}
				textDone = true
			case "tool_use":
				id, _ := b["id"].(string)
				if c, ok := calls[id]; ok && !used[id] {
					used[id] = true
					out = append(out, toolUse(c))
				}
			default:
				out = append(out, b)
			}
		}
	}
	if !textDone {
		out = append(out, textBlocks(m.Content)...)
	}
	for _, c := range m.ToolCalls {
		if !used[c.ID] {
			used[c.ID] = true
			out = append(out, toolUse(c))
		}
	}
	return out
}

// toolUse is a call as the API takes it back: its input a JSON object ({} when the model's
// arguments were not one).
func toolUse(c model.CallSpec) block {
	input, ok := model.ParseArgs(c.Arguments)
	if !ok {
		input = json.RawMessage("{}")
	}
	return block{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input}
}

// decodeBlocks reads stored blocks; numbers stay as written.
func decodeBlocks(raw json.RawMessage) []block {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []block
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// storedText is the text of the stored blocks joined, to tell whether the message's text
// is still theirs.
func storedText(bs []block) string {
	var b strings.Builder
	for _, x := range bs {
		if x["type"] == "text" {
			b.WriteString(jsonString(x["text"]))
		}
	}
	return b.String()
}

func jsonString(v any) string {
	s, _ := v.(string)
	return s
}

// thinking is the request's thinking setting for a reply of at most maxTokens, as Kimi CLI
// sets it: nothing when the switch is unset; disabled when off; when on, adaptive thinking
// (with summarised thoughts and a high effort) for the models that have it, else a
// thinking budget of three quarters of maxTokens. A reply too small for the smallest
// budget and an answer is asked for without thinking.
func (a *Client) thinking(maxTokens int) (map[string]any, map[string]string) {
	switch {
	case a.cfg.Thinking == nil:
		return nil, nil
	case !*a.cfg.Thinking:
		return map[string]any{"type": "disabled"}, nil
	case adaptiveThinking(a.cfg.Model):
		return map[string]any{"type": "adaptive", "display": "summarized"}, map[string]string{"effort": "high"}
	case maxTokens < 2*minThinkingBudget:
		return nil, nil
	}
	return map[string]any{"type": "enabled", "budget_tokens": maxTokens * 3 / 4}, nil
}

// adaptiveThinking reports whether a model takes thinking {type: adaptive}: Claude 4.6 and
// later (opus-4-6, sonnet-4.7, ...; a date suffix such as sonnet-4-20250514 is not a
// minor version) and the models without a version in their id that Kimi CLI lists.
func adaptiveThinking(modelID string) bool {
	id := strings.ToLower(modelID)
	if strings.Contains(id, "mythos") {
		return true
	}
	for _, family := range []string{"opus", "sonnet", "haiku"} {
		for rest := id; ; {
			i := strings.Index(rest, family)
			if i < 0 {
				break
			}
			rest = rest[i+len(family):]
			if major, minor, ok := familyVersion(rest); ok {
				return major > 4 || (major == 4 && minor >= 6)
			}
		}
	}
	return false
}

// familyVersion reads "-4-6" or ".4.6" at the start of s: a separator, the major version,
// a separator and a minor version of one or two digits not followed by another digit.
func familyVersion(s string) (major, minor int, ok bool) {
	digits := func(s string) (string, string) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[:i], s[i:]
	}
	sep := func(s string) (string, bool) {
		if s != "" && (s[0] == '-' || s[0] == '.') {
			return s[1:], true
		}
		return s, false
	}
	s, ok1 := sep(s)
	maj, s := digits(s)
	s, ok2 := sep(s)
	mn, _ := digits(s)
	if !ok1 || !ok2 || maj == "" || mn == "" || len(mn) > 2 {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(maj)
	minor, _ = strconv.Atoi(mn)
	return major, minor, true
}
