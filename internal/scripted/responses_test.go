package scripted_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// responsesEvents posts to the server's Responses path and returns the events' types and
// payloads, in order.
func responsesEvents(t *testing.T, s *scripted.Server, body string) ([]string, []map[string]any) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var types []string
	var evs []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("data line %q: %v", data, err)
		}
		types = append(types, e["type"].(string))
		evs = append(evs, e)
	}
	return types, evs
}

// A scripted reply is played to a Responses request as the Responses API streams: each
// item added, its deltas, done with its whole content, and response.completed with the
// usage in the API's names.
func TestResponsesTranslation(t *testing.T) {
	s := scripted.New(t, scripted.Reply(scripted.Think("hmm"), scripted.Say("Hi there"), scripted.Call("Shell", `{"command":"ls"}`),
		scripted.Usage(50, 10, 20), scripted.ReasoningTokens(4)))
	types, evs := responsesEvents(t, s, `{"model":"m","input":"hi","stream":true}`)
	want := []string{
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.output_item.done", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta",
		"response.output_item.done", "response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed",
	}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("events %v\nwant %v", types, want)
	}
	rs := evs[3]["item"].(map[string]any)
	if rs["encrypted_content"] != scripted.EncryptedReasoning("hmm") {
		t.Errorf("reasoning item = %v", rs)
	}
	call := evs[14]["item"].(map[string]any)
	if call["name"] != "Shell" || call["arguments"] != `{"command":"ls"}` || call["call_id"] == "" {
		t.Errorf("call item = %v", call)
	}
	resp := evs[len(evs)-1]["response"].(map[string]any)
	u := resp["usage"].(map[string]any)
	if u["input_tokens"] != 50.0 || u["output_tokens"] != 10.0 || u["input_tokens_details"].(map[string]any)["cached_tokens"] != 20.0 ||
		u["output_tokens_details"].(map[string]any)["reasoning_tokens"] != 4.0 || len(resp["output"].([]any)) != 3 {
		t.Errorf("completed = %v", resp)
	}
}

// Endings: a token limit is response.incomplete, an error object an error event, a cut
// stream has no final event, native events pass as they are.
func TestResponsesTranslationEndings(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply scripted.Response
		last  string
	}{
		{"length", scripted.Reply(scripted.Say("a"), scripted.Finish("length")), "response.incomplete"},
		{"filtered", scripted.Reply(scripted.Say("a"), scripted.Finish("content_filter")), "response.incomplete"},
		{"error object", scripted.Reply(scripted.Raw(`data: {"error":{"code":"invalid_api_key","message":"bad key"}}`+"\n\n"), scripted.End()), "error"},
		{"cut", scripted.Reply(scripted.Say("a b"), scripted.Cut()), "response.output_text.delta"},
		{"native", scripted.Reply(scripted.Raw(`data: {"type":"response.completed","response":{"status":"completed"}}`+"\n\n"), scripted.End()), "response.completed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := scripted.New(t, tt.reply)
			types, evs := responsesEvents(t, s, `{"model":"m","input":"hi"}`)
			if len(types) == 0 || types[len(types)-1] != tt.last {
				t.Fatalf("events %v, want the last to be %s", types, tt.last)
			}
			if tt.name == "error object" && (evs[len(evs)-1]["code"] != "invalid_api_key" || evs[len(evs)-1]["message"] != "bad key") {
				t.Errorf("error event = %v", evs[len(evs)-1])
			}
		})
	}
}

// What a Responses request sent back reads as chat-completions messages: an assistant
// turn's items are one message, a call's output a tool message.
func TestResponsesRequestMessages(t *testing.T) {
	s := scripted.New(t, scripted.Text("ok"))
	body := `{"model":"m","input":[{"role":"system","content":"sys"},{"role":"user","content":"go"},` +
		`{"type":"reasoning","summary":[],"encrypted_content":"E"},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking."}]},` +
		`{"type":"function_call","call_id":"c1","name":"Shell","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":"files"}]}`
	responsesEvents(t, s, body)
	msgs := s.Requests()[0].Messages()
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if !reflect.DeepEqual(roles, []string{"system", "user", "assistant", "tool"}) {
		t.Fatalf("roles = %v", roles)
	}
	a := msgs[2]
	calls := a["tool_calls"].([]any)
	if a["content"] != "Looking." || len(calls) != 1 || calls[0].(map[string]any)["id"] != "c1" || len(a["reasoning_items"].([]any)) != 1 {
		t.Errorf("assistant = %v", a)
	}
	if msgs[3]["tool_call_id"] != "c1" || msgs[3]["content"] != "files" {
		t.Errorf("tool = %v", msgs[3])
	}
}
