package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Responses API (POST /v1/responses), for agents that speak nothing else: one
// streamed message with the plain answer, as the events a provider sends for it. The
// request is read only to be sure it is JSON; no tool step is ever asked for.

// responses answers a Responses API request with the answer of a run without tool steps.
func responses(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"body is not JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	if req.Model == "" {
		req.Model = "bench-model"
	}
	s := newStream(w)
	e := &eventWriter{s: s}
	text := answerText(0)
	const id, item = "resp_bench", "msg_bench"
	response := func(status, output string) map[string]any {
		body := map[string]any{"id": id, "object": "response", "created_at": 1767225600,
			"status": status, "model": req.Model, "output": json.RawMessage(output)}
		if status == "completed" {
			body["usage"] = map[string]any{"input_tokens": 1200, "output_tokens": 40, "total_tokens": 1240,
				"input_tokens_details":  map[string]int{"cached_tokens": 1000},
				"output_tokens_details": map[string]int{"reasoning_tokens": 0}}
		}
		return body
	}
	message := func(status, text string) json.RawMessage {
		content := "[]"
		if status == "completed" {
			content = `[{"type":"output_text","text":` + quote(text) + `,"annotations":[]}]`
		}
		return json.RawMessage(`{"id":"` + item + `","type":"message","status":"` + status +
			`","role":"assistant","content":` + content + `}`)
	}
	part := func(text string) json.RawMessage {
		return json.RawMessage(`{"type":"output_text","text":` + quote(text) + `,"annotations":[]}`)
	}
	at := map[string]any{"item_id": item, "output_index": 0, "content_index": 0}
	with := func(m map[string]any) map[string]any {
		for k, v := range at {
			m[k] = v
		}
		return m
	}

	e.send("response.created", map[string]any{"response": response("in_progress", "[]")})
	e.send("response.in_progress", map[string]any{"response": response("in_progress", "[]")})
	e.send("response.output_item.added", map[string]any{"output_index": 0, "item": message("in_progress", "")})
	e.send("response.content_part.added", with(map[string]any{"part": part("")}))
	for _, word := range strings.SplitAfter(text, " ") {
		e.send("response.output_text.delta", with(map[string]any{"delta": word}))
	}
	e.send("response.output_text.done", with(map[string]any{"text": text}))
	e.send("response.content_part.done", with(map[string]any{"part": part(text)}))
	e.send("response.output_item.done", map[string]any{"output_index": 0, "item": message("completed", text)})
	e.send("response.completed", map[string]any{"response": response("completed", "["+string(message("completed", text))+"]")})
}

// eventWriter writes named SSE events with their sequence numbers, each flushed at once.
type eventWriter struct {
	s   *stream
	seq int
}

func (e *eventWriter) send(typ string, fields map[string]any) {
	fields["type"] = typ
	fields["sequence_number"] = e.seq
	e.seq++
	b, _ := json.Marshal(fields) // maps of strings, numbers and raw JSON always marshal
	fmt.Fprintf(e.s.w, "event: %s\ndata: %s\n\n", typ, b)
	if e.s.f != nil {
		e.s.f.Flush()
	}
}

// models lists the one model the server pretends to serve.
func models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"object":"list","data":[{"id":"bench-model","object":"model","created":1767225600,"owned_by":"benchserver"}]}`)
}
