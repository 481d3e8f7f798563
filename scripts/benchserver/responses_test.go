package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A Responses API client (codex, for scripts/peers.sh) reads the answer from the text
// deltas and ends at response.completed, whose response carries the finished message and
// the usage; every data line is an event whose type matches its event line.
func TestResponsesStreamsTheAnswer(t *testing.T) {
	srv := httptest.NewServer(routes(0))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json",
		strings.NewReader(`{"model":"bench-model","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
	}

	type event struct {
		Type     string `json:"type"`
		Seq      int    `json:"sequence_number"`
		Delta    string `json:"delta"`
		Response struct {
			Status string `json:"status"`
			Output []struct {
				Type    string `json:"type"`
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"`
			Usage struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		} `json:"response"`
	}
	var events []event
	var text strings.Builder
	name := ""
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
			continue
		}
		v, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(v), &e); err != nil {
			t.Fatalf("data line is not JSON: %s", v)
		}
		if e.Type != name {
			t.Errorf("event line %q, data type %q", name, e.Type)
		}
		if e.Seq != len(events) {
			t.Errorf("event %d has sequence number %d", len(events), e.Seq)
		}
		if e.Type == "response.output_text.delta" {
			text.WriteString(e.Delta)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(events) < 2 || events[0].Type != "response.created" {
		t.Fatalf("the stream does not begin with response.created: %+v", events)
	}
	if got, want := text.String(), answerText(0); got != want {
		t.Errorf("deltas say %q, want %q", got, want)
	}
	last := events[len(events)-1]
	if last.Type != "response.completed" || last.Response.Status != "completed" {
		t.Fatalf("last event %q with status %q, want response.completed", last.Type, last.Response.Status)
	}
	out := last.Response.Output
	if len(out) != 1 || out[0].Type != "message" || out[0].Role != "assistant" ||
		len(out[0].Content) != 1 || out[0].Content[0].Text != answerText(0) {
		t.Errorf("completed response's output: %+v", out)
	}
	if last.Response.Usage.OutputTokens == 0 {
		t.Error("completed response has no usage")
	}
}

func TestResponsesRefusesABodyThatIsNotJSON(t *testing.T) {
	srv := httptest.NewServer(routes(0))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
}

func TestModelsListsTheOneModel(t *testing.T) {
	srv := httptest.NewServer(routes(0))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil || len(list.Data) != 1 || list.Data[0].ID != "bench-model" {
		t.Errorf("GET /v1/models: %s (%v)", b, err)
	}
}
