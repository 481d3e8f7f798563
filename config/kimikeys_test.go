package config

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestKimiKeysNeverIgnoredSilently: every key of a Kimi CLI 1.49 config.toml is honoured or
// named in a warning (issue 27 #3). Keys Kimi's own print mode ignores (the interactive
// shell's) pass quietly; a key nobody knows is named as a likely typo; a key that is
// honoured (by the typed file or a declared flag) draws nothing.
func TestKimiKeysNeverIgnoredSilently(t *testing.T) {
	const model = `
default_model = "m"
[models.m]
provider = "p"
model = "m-1"
max_context_size = 100000
display_name = "Model One"
[providers.p]
type = "%s"
base_url = "http://127.0.0.1:1/v1"
api_key = "sk-file"
`
	kimi := strings.Replace(model, "%s", "kimi", 1)
	legacy := strings.Replace(model, "%s", "openai_legacy", 1)
	for _, tt := range []struct {
		name  string
		text  string
		warns []string // each must appear in one warning
		none  bool     // no warning at all
		key   *string  // Endpoint.ReasoningKey
	}{
		{name: "honoured and shell-only keys pass quietly", none: true, text: `
default_yolo = true
default_editor = "vim"
theme = "light"
show_thinking_stream = false
telemetry = false
skip_afk_prompt_injection = false
default_plan_mode = false
merge_all_available_skills = true
extra_skill_dirs = []
` + kimi + `
[loop_control]
max_steps_per_turn = 10
max_reply_bytes = 1000000
[mcp.client]
tool_call_timeout_ms = 5000
`},
		{name: "unhonoured Kimi keys", text: `
telemetry = true
skip_afk_prompt_injection = true
default_plan_mode = true
` + kimi + `
[background]
print_wait_ceiling_s = 60
keep_alive_on_exit = true
[notifications]
claim_stale_after_ms = 2000
`, warns: []string{
			"config: telemetry: kimi-run sends no usage telemetry",
			"config: skip_afk_prompt_injection: kimi-run injects no afk reminder",
			"config: default_plan_mode: plan mode is not available",
			"config: notifications.claim_stale_after_ms: kimi-run keeps no notification store",
		}},
		{name: "typos", text: "defualt_thinking = true\n" + kimi + "[loop_control]\nmax_stepz = 3\n[background]\nprint_wait_ceiling = 5\n", warns: []string{
			"config: defualt_thinking is not a key of Kimi CLI 1.49 or of kimi-run: ignored (a typo?)",
			"config: loop_control.max_stepz is not a key",
			"config: background.print_wait_ceiling is not a key",
		}},
		{name: "reasoning_key on openai_legacy", text: strings.Replace(legacy, `api_key = "sk-file"`, "api_key = \"sk-file\"\nreasoning_key = \"reasoning\"", 1),
			none: true, key: ptrTo("reasoning")},
		{name: "an empty reasoning_key turns the round trip off", text: strings.Replace(legacy, `api_key = "sk-file"`, "api_key = \"sk-file\"\nreasoning_key = \"\"", 1),
			none: true, key: ptrTo("")},
		{name: "reasoning_key on kimi", text: strings.Replace(kimi, `api_key = "sk-file"`, "api_key = \"sk-file\"\nreasoning_key = \"reasoning\"", 1),
			warns: []string{`config: providers.p.reasoning_key is read for openai_legacy providers only, as in Kimi CLI: ignored for type "kimi"`}},
		{name: "env on a kimi provider", text: kimi + "env = { GOOGLE_CLOUD_PROJECT = \"proj\" }\n",
			warns: []string{`config: providers.p.env: Kimi CLI sets these variables for vertexai providers only; ignored for type "kimi"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, tt.text)}
			s, err := Resolve(context.Background(), parse(t, env, "-p", "x"), env)
			if err != nil {
				t.Fatal(err)
			}
			if tt.none && len(s.Warnings) != 0 {
				t.Errorf("warnings %q, want none", s.Warnings)
			}
			for _, w := range tt.warns {
				if !slices.ContainsFunc(s.Warnings, func(got string) bool { return strings.Contains(got, w) }) {
					t.Errorf("no warning %q among %q", w, s.Warnings)
				}
			}
			if tt.warns != nil && len(s.Warnings) != len(tt.warns) {
				t.Errorf("%d warnings, want %d: %q", len(s.Warnings), len(tt.warns), s.Warnings)
			}
			if got := s.Endpoint.ReasoningKey; (got == nil) != (tt.key == nil) || (got != nil && *got != *tt.key) {
				t.Errorf("ReasoningKey = %v, want %v", deref(got), deref(tt.key))
			}
		})
	}
}

// A provider's env values that name credentials are secrets, whatever its type.
func TestProviderEnvSecrets(t *testing.T) {
	text := `default_model = "m"
[models.m]
provider = "p"
model = "m-1"
max_context_size = 100000
[providers.p]
type = "kimi"
base_url = "http://127.0.0.1:1/v1"
api_key = "sk-file"
env = { GOOGLE_API_KEY = "g-secret-1", GOOGLE_CLOUD_LOCATION = "us-central1" }
`
	env := MapEnv{"KIMI_SHARE_DIR": shareDir(t, text)}
	s, err := Resolve(context.Background(), parse(t, env, "-p", "x"), env)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Secrets.Own, "g-secret-1") || slices.Contains(s.Secrets.Own, "us-central1") {
		t.Errorf("secrets %q", s.Secrets.Own)
	}
}
