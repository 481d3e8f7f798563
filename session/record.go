package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/event"
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

// mediaPart is an image or a video kept in a context file: an image_url or video_url part
// with a data URL, as Kimi CLI keeps them, and the file a tool read it from (kimi-run's own
// field, which Kimi CLI ignores).
type mediaPart struct {
	Type     string    `json:"type"`
	ImageURL *urlValue `json:"image_url,omitempty"`
	VideoURL *urlValue `json:"video_url,omitempty"`
	Path     string    `json:"path,omitempty"`
}

type urlValue struct {
	URL string `json:"url"`
}

// toMessageRecord is m as a context file keeps it, its media included.
func toMessageRecord(m model.Message) messageRecord { return messageRecordOf(m, true) }

// messageRecordOf is m as a record. Its images and videos are content parts after the text
// when keepMedia, and otherwise a text part that says what was there and why it is gone.
func messageRecordOf(m model.Message, keepMedia bool) messageRecord {
	rec := messageRecord{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name,
		ReasoningField: m.ReasoningField, ReasoningDetails: m.ReasoningDetails}
	if m.Reasoning != "" || len(m.Images) > 0 {
		var parts []any
		if m.Reasoning != "" {
			parts = append(parts, thinkPart{Type: "think", Think: m.Reasoning})
		}
		if m.Content != "" {
			parts = append(parts, textPart{Type: "text", Text: m.Content})
		}
		for _, im := range m.Images {
			if !keepMedia {
				parts = append(parts, textPart{Type: "text", Text: droppedMediaNote(im)})
				continue
			}
			url := &urlValue{URL: "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)}
			p := mediaPart{Type: "image_url", ImageURL: url, Path: im.Path}
			if strings.HasPrefix(im.MIME, "video/") {
				p = mediaPart{Type: "video_url", VideoURL: url, Path: im.Path}
			}
			parts = append(parts, p)
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

// droppedMediaNote stands in a record for a medium too large to keep: what the model saw
// then, so that a resumed conversation still makes sense.
func droppedMediaNote(im event.Image) string {
	from := ""
	if im.Path != "" {
		from = " from " + im.Path
	}
	return fmt.Sprintf("\n[%s of %d bytes%s: not kept in the session (too large for one record); read it again to see it]", im.MIME, len(im.Data), from)
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
	// dropped counts content parts this store cannot represent (media by a web address,
	// audio).
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
	Type     string    `json:"type"`
	Text     string    `json:"text"`
	Think    string    `json:"think"`
	ImageURL *urlValue `json:"image_url"`
	VideoURL *urlValue `json:"video_url"`
	Path     string    `json:"path"`
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
		rec.msg.Content, rec.msg.Reasoning, rec.msg.Images, rec.dropped, err = decodeContent(raw.Content)
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
// or a list of parts. Text parts are joined into the text, think parts into the reasoning,
// and image or video parts with a data URL become media; other parts (a medium by a web
// address, audio) are counted as dropped.
func decodeContent(raw json.RawMessage) (text, reasoning string, media []event.Image, dropped int, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", "", nil, 0, nil
	}
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", "", nil, 0, fmt.Errorf("bad content: %w", err)
		}
		return text, "", nil, 0, nil
	case '[':
		var parts []rawPart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", "", nil, 0, fmt.Errorf("bad content parts: %w", err)
		}
		var tb, rb strings.Builder
		for _, p := range parts {
			switch p.Type {
			case "text":
				tb.WriteString(p.Text)
			case "think":
				rb.WriteString(p.Think)
			case "image_url", "video_url":
				url := p.ImageURL
				if p.Type == "video_url" {
					url = p.VideoURL
				}
				if im, ok := fromDataURL(url, p.Path); ok {
					media = append(media, im)
					continue
				}
				dropped++
			default:
				dropped++
			}
		}
		return tb.String(), rb.String(), media, dropped, nil
	}
	return "", "", nil, 0, errors.New("content is neither text nor a list of parts")
}

// fromDataURL is the medium a base64 data URL holds.
func fromDataURL(u *urlValue, path string) (event.Image, bool) {
	if u == nil {
		return event.Image{}, false
	}
	rest, ok := strings.CutPrefix(u.URL, "data:")
	if !ok {
		return event.Image{}, false
	}
	mime, b64, ok := strings.Cut(rest, ";base64,")
	if !ok || mime == "" {
		return event.Image{}, false
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return event.Image{}, false
	}
	return event.Image{MIME: mime, Data: data, Path: path}, true
}
