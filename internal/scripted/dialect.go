package scripted

import (
	"bytes"
	"encoding/json"
	"strings"
)

// What the dialects that rewrite whole events (Anthropic's, Gemini's) share: the walk over a
// response's steps (translated), and over a script's SSE events (chatEvents), which hands
// them the chat-completions chunks and leaves the rest as it is.

// translator is a dialect that rewrites a response's steps as they will be played.
type translator interface {
	// events translates whole SSE events.
	events(data []byte) []byte
	// beforeFlood is what goes out before a flood of text; beforeEnd before a clean end of
	// the body; end after the last step.
	beforeFlood() []byte
	beforeEnd() []byte
	end() []byte
}

// translated returns r with its steps translated by t, when r is an event stream.
func (r Response) translated(t translator) Response {
	if !r.streamed() {
		return r
	}
	out := make([]step, 0, len(r.steps))
	write := func(data []byte) {
		if len(data) > 0 {
			out = append(out, step{kind: stepWrite, data: data})
		}
	}
	for _, st := range r.steps {
		switch st.kind {
		case stepWrite:
			write(t.events(st.data))
		case stepFlood:
			write(t.beforeFlood())
			st.data = t.events(st.data)
			out = append(out, st)
		case stepEnd:
			write(t.beforeEnd())
			out = append(out, st)
		default:
			out = append(out, st)
		}
	}
	write(t.end())
	r.steps = out
	return r
}

// chatHandlers are a dialect's answers to what chatEvents finds.
type chatHandlers struct {
	// done writes what [DONE] becomes.
	done func(out *bytes.Buffer)
	// errorObject writes what an error object ({"error":…} without choices) becomes; nil
	// leaves it as it is.
	errorObject func(out *bytes.Buffer, e json.RawMessage)
	// chunk writes what a chat-completions chunk becomes.
	chunk func(out *bytes.Buffer, c chunk)
}

// chatEvents translates the SSE events in data (whole events, as the builders and scenario
// files write them) through h. Comments, other fields, payloads that are not chunks (the
// API's own stream) and garbage stay as they are, with the blank line that ends them.
func chatEvents(data []byte, h chatHandlers) []byte {
	var out bytes.Buffer
	verbatim := true // whether the blank line that ends an event is the original's to keep
	for ev := range strings.SplitAfterSeq(string(data), "\n") {
		line := strings.TrimSpace(ev)
		payload, ok := strings.CutPrefix(line, "data:")
		switch {
		case line == "":
			if verbatim {
				out.WriteString(ev)
			}
			continue
		case !ok:
			out.WriteString(ev) // comments and other fields stay as they are
			verbatim = true
			continue
		}
		payload = strings.TrimSpace(payload)
		var c chunk
		var probe map[string]json.RawMessage
		switch {
		case payload == "[DONE]":
			h.done(&out)
			verbatim = false
		case json.Unmarshal([]byte(payload), &probe) != nil:
			out.WriteString(ev) // garbage stays garbage
			verbatim = true
		case h.errorObject != nil && probe["error"] != nil && probe["choices"] == nil:
			h.errorObject(&out, probe["error"])
			verbatim = false
		case probe["choices"] == nil && probe["object"] == nil, json.Unmarshal([]byte(payload), &c) != nil:
			out.WriteString(ev) // not a chunk: the API's own stream, or an error object left as it is
			verbatim = true
		default:
			h.chunk(&out, c)
			verbatim = false
		}
	}
	return out.Bytes()
}

// thought is the reasoning a delta carries, in whichever field it came.
func (d delta) thought() string {
	if d.Reasoning == "" && d.ReasoningText != nil {
		return *d.ReasoningText
	}
	return d.Reasoning
}
