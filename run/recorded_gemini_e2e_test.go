package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// Real Gemini and Vertex AI traffic (testdata/providers/gemini-*.txtar, vertexai-*.txtar;
// sources in its README) replayed through the binary with a Kimi config of that provider
// type: what the run shows, counts and sends back.

// replayGoogle runs the binary in stream-json mode against a recording, as a provider of
// type typ.
func replayGoogle(t *testing.T, typ, name string, args ...string) (*scripted.Server, result, []map[string]any) {
	t.Helper()
	srv := scriptedFrom(t, name)
	r := kimi(t, nil, invocation{env: protocolEnv(t, typ, srv, "", ""), args: append([]string{"--output-format", "stream-json", "-p", "go"}, args...)})
	return srv, r, events(t, r.stdout)
}

// signatures are the thoughtSignatures of a recording, in order.
func signatures(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "providers", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`"thoughtSignature": "([^"]+)"`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// contentsOf returns the contents of request i as JSON text, one turn per line.
func contentsOf(t *testing.T, srv *scripted.Server, i int) []string {
	t.Helper()
	var out []string
	for _, c := range srv.Requests()[i].Body["contents"].([]any) {
		b, _ := json.Marshal(c)
		out = append(out, string(b))
	}
	return out
}

func checkUsage(t *testing.T, r result, input, output, reasoning float64) {
	t.Helper()
	u := usageTotals(t, r)
	if u["input_tokens"] != input || u["output_tokens"] != output || u["reasoning_tokens"] != reasoning {
		t.Errorf("usage = %v, want input %v, output %v (thoughts included), reasoning %v", u, input, output, reasoning)
	}
}

// Gemini 3 (recorded): the call keeps Gemini's id, goes back with its signature exactly as
// received, and its result answers that id; the thinking is billed as output.
func TestReplayGemini3Signatures(t *testing.T) {
	t.Parallel()
	srv, r, evs := replayGoogle(t, "gemini", "gemini-3-tool-signature")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	if got := lastResult(t, r)["final_text"]; got != "The current weather in Florence, Italy is 40°C (104°F). Stay hydrated, it's quite hot!" {
		t.Errorf("final_text = %v", got)
	}
	if call := testkit.Last(evs, "tool_call"); call["id"] != "89nz05jy" || call["name"] != "weather" {
		t.Errorf("tool_call = %v", call)
	}
	checkUsage(t, r, 65+206, 16+111+29+83, 111+83)
	sig := signatures(t, "gemini-3-tool-signature")[0]
	turns := contentsOf(t, srv, 1)
	if len(turns) != 3 || turns[1] != `{"parts":[{"functionCall":{"args":{"location":"Florence, Italy"},"id":"89nz05jy","name":"weather"},"thoughtSignature":"`+sig+`"}],"role":"model"}` {
		t.Errorf("model turn sent back:\n%s", strings.Join(turns, "\n"))
	}
	if !strings.HasPrefix(turns[2], `{"parts":[{"functionResponse":{"id":"89nz05jy","name":"weather","response":{"output":`) {
		t.Errorf("result sent back: %s", turns[2])
	}
}

// Gemini 2.5 with thoughts (recorded): the thought is shown as thinking and not sent back,
// the call without an id gets one of kimi-run's, and its signature goes back on it.
func TestReplayGemini25Thinking(t *testing.T) {
	t.Parallel()
	srv, r, evs := replayGoogle(t, "gemini", "gemini-2.5-thinking-tool")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	var thinking strings.Builder
	for _, e := range testkit.OfType(evs, "thinking") {
		thinking.WriteString(e["delta"].(string))
	}
	if !strings.HasPrefix(thinking.String(), "**Determining the Weather Inquiry**") {
		t.Errorf("thinking = %q", thinking.String())
	}
	call := testkit.Last(evs, "tool_call")
	id, _ := call["id"].(string)
	if id == "" || call["name"] != "weather" {
		t.Fatalf("tool_call = %v", call)
	}
	if got := lastResult(t, r)["final_text"]; got != "The weather in Florence, Italy is 40 C." {
		t.Errorf("final_text = %v", got)
	}
	checkUsage(t, r, 54+146, 14+62+12, 62)
	turns := contentsOf(t, srv, 1)
	want := `{"parts":[{"functionCall":{"args":{"location":"Florence, Italy"},"id":"` + id + `","name":"weather"},"thoughtSignature":"` + signatures(t, "gemini-2.5-thinking-tool")[0] + `"}],"role":"model"}`
	if len(turns) != 3 || turns[1] != want {
		t.Errorf("model turn sent back:\n%s\nwant\n%s", strings.Join(turns, "\n"), want)
	}
}

// Parallel calls (recorded): both results go back in one user turn, in call order, and
// only the first call carries the signature, as it came.
func TestReplayGeminiParallelCalls(t *testing.T) {
	t.Parallel()
	srv, r, evs := replayGoogle(t, "google_genai", "gemini-2.5-parallel-calls")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	calls := testkit.OfType(evs, "tool_call")
	if len(calls) != 2 || calls[0]["name"] != "add" || calls[1]["name"] != "multiply" {
		t.Fatalf("tool_calls = %v", calls)
	}
	turns := contentsOf(t, srv, 1)
	if len(turns) != 3 {
		t.Fatalf("turns:\n%s", strings.Join(turns, "\n"))
	}
	if strings.Count(turns[1], "thoughtSignature") != 1 || !strings.Contains(turns[1], `"name":"add"},"thoughtSignature"`) {
		t.Errorf("model turn: %s", turns[1])
	}
	var results struct {
		Parts []struct {
			FunctionResponse struct{ ID, Name string } `json:"functionResponse"`
		} `json:"parts"`
	}
	json.Unmarshal([]byte(turns[2]), &results)
	if len(results.Parts) != 2 || results.Parts[0].FunctionResponse.ID != calls[0]["id"] || results.Parts[1].FunctionResponse.Name != "multiply" {
		t.Errorf("results turn: %s", turns[2])
	}
	if got := lastResult(t, r)["final_text"]; got != "The sum of 2 and 3 is 5. The product of 2 and 3 is 6." {
		t.Errorf("final_text = %v", got)
	}
}

// Vertex AI (recorded): its stream shape (no candidate index, a usage without counts, the
// finish in the call's chunk) reads the same, through a vertexai provider in express mode.
func TestReplayVertexAI(t *testing.T) {
	t.Parallel()
	srv, r, _ := replayGoogle(t, "vertexai", "vertexai-tool")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	if got := lastResult(t, r)["final_text"]; got != "The weather in Florence, Italy is 40 C." {
		t.Errorf("final_text = %v", got)
	}
	checkUsage(t, r, 28+89, 5+51+12, 51)
	req := srv.Requests()[0]
	if !strings.HasSuffix(req.Path, "/publishers/google/models/test-model:streamGenerateContent") || req.Header.Get("x-goog-api-key") == "" {
		t.Errorf("request to %s with headers %v", req.Path, req.Header)
	}
}

// A prompt Model Armor blocked (converted from a recording) is exit 8 with the provider's
// reason, and is not asked again.
func TestReplayGeminiPromptBlocked(t *testing.T) {
	t.Parallel()
	srv, r, _ := replayGoogle(t, "vertexai", "gemini-prompt-blocked")
	if r.code != 8 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	e, _ := res["error"].(map[string]any)
	if res["terminal_reason"] != "filtered" || !strings.Contains(e["message"].(string), "MODEL_ARMOR") || !strings.Contains(r.stderr, "Prompt Injection and Jailbreak filters") {
		t.Errorf("result %v\nstderr %s", res, r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// Google's error answers (built in the documented shapes): a 429 with RetryInfo, a 503 and
// an error object inside the stream are each retried, and the run ends with the answer.
func TestReplayGeminiErrors(t *testing.T) {
	t.Parallel()
	srv, r, evs := replayGoogle(t, "gemini", "gemini-errors", "--max-retries", "3")
	if r.code != 0 {
		t.Fatalf("exit = %d\n%s", r.code, r.stderr)
	}
	retries := testkit.OfType(evs, "retry")
	if len(retries) != 3 || retries[0]["http_status"] != 429.0 || retries[1]["http_status"] != 503.0 ||
		!strings.Contains(retries[2]["error"].(string), "An internal error has occurred") {
		t.Errorf("retries = %v", retries)
	}
	if got := lastResult(t, r)["final_text"]; got != "The sum of 2 and 3 is 5." || len(srv.Requests()) != 4 {
		t.Errorf("final_text = %v after %d requests", got, len(srv.Requests()))
	}
}

// A daily quota used up is exit 5 (quota), asked once: no wait within the run lifts it.
func TestReplayGeminiDailyQuota(t *testing.T) {
	t.Parallel()
	srv, r, _ := replayGoogle(t, "gemini", "gemini-quota-429")
	res := lastResult(t, r)
	e, _ := res["error"].(map[string]any)
	if r.code != 5 || res["terminal_reason"] != "quota" || e["kind"] != "quota" || len(srv.Requests()) != 1 {
		t.Errorf("exit %d, result %v, %d requests\n%s", r.code, res, len(srv.Requests()), r.stderr)
	}
}
