package run_test

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestKimiConfigKeysAreNeverSilent drives the binary with a Kimi CLI config holding every
// key issue 27 found ignored without a word: each is honoured or named on stderr (and as a
// warning event), and the run goes on. reasoning_key is honoured: "" turns the reasoning
// round trip off for an openai_legacy provider, so a thinking model's reasoning is neither
// read nor sent back.
func TestKimiConfigKeysAreNeverSilent(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.Reply(scripted.Think("let me list them"), scripted.Call("SetTodoList", `{}`)),
		scripted.Text("done"),
	)
	cfg := `
telemetry = true
skip_afk_prompt_injection = true
default_model = "ds"

[models.ds]
provider = "legacy"
model = "deepseek-reasoner"
max_context_size = 64000

[providers.legacy]
type = "openai_legacy"
base_url = "` + srv.URL() + `"
api_key = "sk-legacy-cfg"
reasoning_key = ""
env = { SOME_VAR = "1" }

[background]
print_wait_ceiling_s = 60
print_wait_seconds = 60

[notifications]
claim_stale_after_ms = 2000
`
	home := kimiConfig(t, cfg)
	r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_BASE_URL": "", "KIMI_MODEL_NAME": ""},
		args: []string{"--output-format", "stream-json", "-p", "go"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"telemetry: kimi-run sends no usage telemetry",
		"skip_afk_prompt_injection: kimi-run injects no afk reminder",
		`providers.legacy.env: Kimi CLI sets these variables for vertexai providers only; ignored for type "openai_legacy"`,
		"notifications.claim_stale_after_ms: kimi-run keeps no notification store",
		"background.print_wait_seconds is not a key of Kimi CLI 1.49 or of kimi-run",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
		found := false
		for _, e := range events(t, r.stdout) {
			found = found || (e["type"] == "warning" && strings.Contains(e["message"].(string), want))
		}
		if !found {
			t.Errorf("no warning event %q", want)
		}
	}
	for _, e := range events(t, r.stdout) {
		if e["type"] == "thinking" {
			t.Errorf("reasoning was read with reasoning_key = \"\": %v", e)
		}
	}
	sent := srv.Requests()[1].MessagesOf("assistant")
	if len(sent) != 1 {
		t.Fatalf("assistant messages sent back: %v", sent)
	}
	for _, field := range []string{"reasoning_content", "reasoning"} {
		if _, ok := sent[0][field]; ok {
			t.Errorf("reasoning sent back in %s with reasoning_key = \"\": %v", field, sent[0])
		}
	}
}
