package run_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// responsesConfig is a Kimi config.toml whose default model "gpt" is served by an
// openai_responses provider; providerKeys and modelKeys are added to their tables, top to
// the file's top level.
func responsesConfig(t *testing.T, top, providerKeys, modelKeys string) map[string]string {
	t.Helper()
	home := kimiConfig(t, fmt.Sprintf(`%s
default_model = "gpt"

[models.gpt]
provider = "oa"
model = "gpt-5"
max_context_size = 400000
%s

[providers.oa]
type = "openai_responses"
%s
`, top, modelKeys, providerKeys))
	return map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
}

// An openai_responses provider takes its endpoint and key from OPENAI_BASE_URL and
// OPENAI_API_KEY, as Kimi CLI does (they beat the provider's own), and is spoken to on the
// Responses API, not chat completions, which it was silently sent to before.
func TestResponsesProviderFromEnvironment(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("Hello from Responses."))
	env := responsesConfig(t, "", `base_url = "http://127.0.0.1:1/v1"`+"\napi_key = \"sk-from-file\"", "")
	env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"] = srv.URL(), testKey
	r := kimi(t, nil, invocation{env: env, args: []string{"-p", "hi"}})
	if r.code != 0 || r.stdout != "Hello from Responses.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer "+testKey || req.Body["model"] != "gpt-5" {
		t.Errorf("request %s, auth %q, model %v", req.Path, req.Header.Get("Authorization"), req.Body["model"])
	}
	if _, ok := req.Body["messages"]; ok || req.Body["store"] != false {
		t.Errorf("not a Responses body: %v", req.Body)
	}
}

// The thinking switch reaches a Responses model as Kimi CLI sends it: a reasoning effort,
// summaries and the encrypted reasoning asked for when --thinking is given, when the model
// always thinks, or when default_thinking is on and the model can think; nothing otherwise
// (a model that does not reason refuses them), and never Kimi's own thinking field.
func TestResponsesThinkingSwitch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, top, modelKeys string
		args                 []string
		want                 bool
	}{
		{name: "unset", want: false},
		{name: "--thinking", args: []string{"--thinking"}, want: true},
		{name: "--no-thinking on an always-thinking model", modelKeys: `capabilities = ["always_thinking"]`, args: []string{"--no-thinking"}, want: false},
		{name: "always thinking", modelKeys: `capabilities = ["always_thinking"]`, want: true},
		{name: "default_thinking and the capability", top: "default_thinking = true", modelKeys: `capabilities = ["thinking"]`, want: true},
		{name: "default_thinking without the capability", top: "default_thinking = true", want: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			env := responsesConfig(t, tt.top, fmt.Sprintf("base_url = %q\napi_key = %q", srv.URL(), testKey), tt.modelKeys)
			r := kimi(t, nil, invocation{env: env, args: append([]string{"-p", "hi"}, tt.args...)})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			b := srv.Requests()[0].Body
			reasoning, _ := b["reasoning"].(map[string]any)
			got := reasoning["effort"] == "high" && reasoning["summary"] == "auto" && fmt.Sprint(b["include"]) == "[reasoning.encrypted_content]"
			if got != tt.want || (!tt.want && (b["reasoning"] != nil || b["include"] != nil)) {
				t.Errorf("reasoning %v include %v, want asked: %v", b["reasoning"], b["include"], tt.want)
			}
			if _, ok := b["thinking"]; ok {
				t.Errorf("Kimi's thinking field sent to the Responses API: %v", b["thinking"])
			}
		})
	}
}

// Real Responses API traffic through the binary: gpt-5's reasoning summary as thinking
// events and the weather call (fantasy's recording; kimi-run has no weather tool, so the
// model is told so and the recorded answer ends the run), usage in the result; OpenRouter's
// raw reasoning (pydantic-ai's recording); a recorded 400 is exit 1 with the provider's
// words, tried once.
func TestReplayResponsesRecordings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file, final, thinking string
		in, out, reasoning    float64
		code, requests        int
		stderr                string
	}{
		{file: "openai-responses-reasoning-tool", final: "Right now in Florence, Italy, it’s about 40°C (104°F).", thinking: "**Getting weather info**",
			in: 155, out: 577, reasoning: 448, requests: 2},
		{file: "openrouter-responses-raw-reasoning", final: "4", thinking: `The user asks: "What is 2+2?"`, in: 78, out: 37, reasoning: 22, requests: 1},
		{file: "openai-responses-400", code: 1, requests: 1, stderr: "Invalid 'temperature': decimal below minimum value"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			srv := scriptedFrom(t, tt.file)
			env := responsesConfig(t, "", fmt.Sprintf("base_url = %q\napi_key = %q", srv.URL(), testKey), "")
			r := kimi(t, nil, invocation{env: env, args: []string{"--thinking", "--output-format", "stream-json", "-p", "go"}})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.code != 0 {
				if !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
				}
				return
			}
			evs := events(t, r.stdout)
			if final, _ := lastResult(t, r)["final_text"].(string); !strings.HasPrefix(final, tt.final) {
				t.Errorf("final text = %q", final)
			}
			var think strings.Builder
			for _, e := range testkit.OfType(evs, "thinking") {
				think.WriteString(e["delta"].(string))
			}
			if !strings.HasPrefix(think.String(), tt.thinking) {
				t.Errorf("thinking = %.80q", think.String())
			}
			if u := usageTotals(t, r); u["input_tokens"] != tt.in || u["output_tokens"] != tt.out || u["reasoning_tokens"] != tt.reasoning {
				t.Errorf("result usage = %v", u)
			}
		})
	}
}
