package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/model"
)

// Record kinds of a context file that are not messages. The leading underscore keeps them
// apart from message roles; Kimi CLI writes the same names, so either program reads the
// other's files.
const (
	recordSystemPrompt = "_system_prompt"
	recordCheckpoint   = "_checkpoint"
	recordUsage        = "_usage"
)

// maxRecordBytes bounds one line of a context file. It is far above any tool output the
// tools keep, yet stops a corrupt file without newlines from eating all memory on restore.
// Writes enforce it too, so the store never writes a line it would refuse to read.
const maxRecordBytes = 64 << 20

// Errors of the record encoding.
var (
	// ErrRecordTooLarge means one record would exceed the store's line limit (64 MiB).
	ErrRecordTooLarge = errors.New("session record too large")
	// ErrBadRedaction means the Redact function turned a record into something that is not
	// one line of JSON; writing it would lose the record on restore.
	ErrBadRedaction = errors.New("redacted session record is not one line of JSON")
)

type systemPromptRecord struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type checkpointRecord struct {
	Role string `json:"role"`
	ID   int    `json:"id"`
}

type usageRecord struct {
	Role       string `json:"role"`
	TokenCount int    `json:"token_count"`
}

// messageRecord is a Message in kosong's JSON layout. Content is a string, or a list of
// parts when there is reasoning to keep next to the text.
type messageRecord struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"`
	ToolCalls  []toolCallRecord `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	Name       string           `json:"name,omitempty"`
	// ReasoningField and ReasoningDetails keep where the reasoning came from (issue 16),
	// so a resumed session sends it back the same way; Kimi CLI ignores both.
	ReasoningField   string          `json:"reasoning_field,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
}

type thinkPart struct {
	Type  string `json:"type"`
	Think string `json:"think"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolCallRecord struct {
	Type     string       `json:"type"`
	ID       string       `json:"id"`
	Function functionBody `json:"function"`
}

type functionBody struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func toMessageRecord(m model.Message) messageRecord {
	rec := messageRecord{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name,
		ReasoningField: m.ReasoningField, ReasoningDetails: m.ReasoningDetails}
	if m.Reasoning != "" {
		parts := []any{thinkPart{Type: "think", Think: m.Reasoning}}
		if m.Content != "" {
			parts = append(parts, textPart{Type: "text", Text: m.Content})
		}
		rec.Content = parts
	}
	for _, c := range m.ToolCalls {
		rec.ToolCalls = append(rec.ToolCalls, toolCallRecord{
			Type: "function", ID: c.ID, Function: functionBody{Name: c.Name, Arguments: c.Arguments},
		})
	}
	return rec
}

// encodeLine marshals one record to a complete line, newline included, ready for a single
// write. redact, when set, sees the JSON text without the newline.
func encodeLine(v any, redact func(string) string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Tool output is full of <, > and &; escaping them would make the file hard to read.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode session record: %w", err)
	}
	line := buf.Bytes()
	if redact != nil {
		body := string(line[:len(line)-1])
		if scrubbed := redact(body); scrubbed != body {
			if strings.ContainsAny(scrubbed, "\r\n") || !json.Valid([]byte(scrubbed)) {
				return nil, ErrBadRedaction
			}
			line = append([]byte(scrubbed), '\n')
		}
	}
	if len(line) > maxRecordBytes {
		return nil, fmt.Errorf("%w: %d bytes", ErrRecordTooLarge, len(line))
	}
	return line, nil
}

// recordKind says what one decoded line holds.
type recordKind int

const (
	kindMessage recordKind = iota
	kindSystemPrompt
	kindCheckpoint
	kindUsage
)

// record is one decoded line.
type record struct {
	kind recordKind
	// text is the system prompt.
	text string
	// n is the checkpoint id or the token count.
	n   int
	msg model.Message
	// dropped counts content parts this store cannot represent (images, audio, video).
	dropped int
}

// rawRecord accepts every record kind, in our layout and in Kimi CLI's.
type rawRecord struct {
	Role       *string         `json:"role"`
	Content    json.RawMessage `json:"content"`
	ID         *int            `json:"id"`
	TokenCount *int            `json:"token_count"`
	ToolCalls  []rawToolCall   `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	// See messageRecord.
	ReasoningField   string          `json:"reasoning_field"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
}

type rawToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is null in Kimi's files when the model streamed none.
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

type rawPart struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	Think string `json:"think"`
}

// decodeRecord parses one line (without its newline).
func decodeRecord(line []byte) (record, error) {
	var raw rawRecord
	if err := json.Unmarshal(line, &raw); err != nil {
		return record{}, fmt.Errorf("not a JSON record: %w", err)
	}
	if raw.Role == nil {
		return record{}, errors.New("no role")
	}
	switch role := *raw.Role; role {
	case recordSystemPrompt:
		var text string
		if err := json.Unmarshal(raw.Content, &text); err != nil {
			return record{}, errors.New("system prompt content is not a string")
		}
		return record{kind: kindSystemPrompt, text: text}, nil
	case recordCheckpoint:
		if raw.ID == nil || *raw.ID < 0 {
			return record{}, errors.New("checkpoint without a valid id")
		}
		return record{kind: kindCheckpoint, n: *raw.ID}, nil
	case recordUsage:
		if raw.TokenCount == nil {
			return record{}, errors.New("usage without token_count")
		}
		return record{kind: kindUsage, n: *raw.TokenCount}, nil
	case model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool:
		rec := record{kind: kindMessage, msg: model.Message{Role: role, ToolCallID: raw.ToolCallID, Name: raw.Name, ReasoningField: raw.ReasoningField}}
		if len(raw.ReasoningDetails) > 0 && json.Valid(raw.ReasoningDetails) && string(raw.ReasoningDetails) != "null" {
			rec.msg.ReasoningDetails = raw.ReasoningDetails
		}
		var err error
		rec.msg.Content, rec.msg.Reasoning, rec.dropped, err = decodeContent(raw.Content)
		if err != nil {
			return record{}, err
		}
		for _, c := range raw.ToolCalls {
			spec := model.CallSpec{ID: c.ID, Name: c.Function.Name}
			if c.Function.Arguments != nil {
				spec.Arguments = *c.Function.Arguments
			}
			rec.msg.ToolCalls = append(rec.msg.ToolCalls, spec)
		}
		return rec, nil
	default:
		return record{}, fmt.Errorf("unknown role %q", role)
	}
}

// decodeContent reads content as kosong writes it: absent or null (no content), a string,
// or a list of parts. Text parts are joined into the text and think parts into the
// reasoning; other parts are counted as dropped.
func decodeContent(raw json.RawMessage) (text, reasoning string, dropped int, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", "", 0, nil
	}
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", "", 0, fmt.Errorf("bad content: %w", err)
		}
		return text, "", 0, nil
	case '[':
		var parts []rawPart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", "", 0, fmt.Errorf("bad content parts: %w", err)
		}
		var tb, rb strings.Builder
		for _, p := range parts {
			switch p.Type {
			case "text":
				tb.WriteString(p.Text)
			case "think":
				rb.WriteString(p.Think)
			default:
				dropped++
			}
		}
		return tb.String(), rb.String(), dropped, nil
	}
	return "", "", 0, errors.New("content is neither text nor a list of parts")
}
