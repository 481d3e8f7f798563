package run_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// Kimi CLI's configuration surfaces: inline --config, loop_control.max_ralph_iterations and
// the KIMI_MODEL_* variables, with the precedence the README states.

// kimiTOML is a Kimi config whose default model k2 (model id kimi-k2-from-config) is served
// by url.
func kimiTOML(url, extra string) string {
	return fmt.Sprintf(`default_model = "k2"
%s
[models.k2]
provider = "moonshot"
model = "kimi-k2-from-config"
max_context_size = 200000

[providers.moonshot]
type = "kimi"
base_url = "%s"
api_key = "%s"
`, extra, url, testKey)
}

func TestKimiInlineConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config func(url string) string
	}{
		{name: "toml", config: func(url string) string { return kimiTOML(url, "") }},
		{name: "json", config: func(url string) string {
			return fmt.Sprintf(`{"default_model":"k2","models":{"k2":{"provider":"p","model":"kimi-k2-from-config","max_context_size":200000}},`+
				`"providers":{"p":{"type":"kimi","base_url":%q,"api_key":%q,"custom_headers":{"X-Team":"ci"}}}}`, url, testKey)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			// The file in HOME names a model that does not exist: --config replaces it.
			home := kimiConfig(t, `default_model = "nope"`)
			env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
			r := kimi(t, nil, invocation{env: env, args: []string{"--config", tt.config(srv.URL()), "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			req := srv.Requests()[0]
			if req.Body["model"] != "kimi-k2-from-config" || req.Header.Get("Authorization") != "Bearer "+testKey {
				t.Errorf("request model %v, auth %q", req.Body["model"], req.Header.Get("Authorization"))
			}
			if tt.name == "json" && req.Header.Get("X-Team") != "ci" {
				t.Errorf("custom headers lost: %v", req.Header)
			}
		})
	}
}

func TestKimiRalphFromConfig(t *testing.T) {
	t.Parallel()
	continues := []scripted.Response{scripted.Text("a <choice>CONTINUE</choice>"), scripted.Text("b <choice>CONTINUE</choice>"), scripted.Text("c <choice>CONTINUE</choice>")}
	tests := []struct {
		name     string
		args     []string
		code     int
		requests int
	}{
		{name: "config", code: 4, requests: 3},
		{name: "--max-ralph-iterations wins", args: []string{"--max-ralph-iterations", "0"}, code: 0, requests: 1},
		{name: "--ralph wins", args: []string{"--ralph", "0"}, code: 0, requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, continues...)
			home := kimiConfig(t, kimiTOML(srv.URL(), "")+"\n[loop_control]\nmax_ralph_iterations = 2\n")
			env := map[string]string{"HOME": home, "KIMI_MODEL_NAME": ""}
			r := kimi(t, nil, invocation{env: env, args: append([]string{"-p", "fix it"}, tt.args...)})
			if r.code != tt.code || len(srv.Requests()) != tt.requests {
				t.Errorf("exit %d after %d requests, want %d after %d\n%s", r.code, len(srv.Requests()), tt.code, tt.requests, r.stderr)
			}
		})
	}
}

func TestKimiModelNamePrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		model string
	}{
		{name: "the config's default model", model: "kimi-k2-from-config"},
		{name: "KIMI_MODEL_NAME renames the default model", env: map[string]string{"KIMI_MODEL_NAME": "kimi-k2-env"}, model: "kimi-k2-env"},
		{name: "--model picks the entry over the variable", env: map[string]string{"KIMI_MODEL_NAME": "kimi-k2-env"}, args: []string{"--model", "k2"}, model: "kimi-k2-from-config"},
		{name: "--model names a model outside the file", env: map[string]string{"KIMI_MODEL_NAME": "kimi-k2-env", "KIMI_API_KEY": testKey}, args: []string{"-m", "other-model"}, model: "other-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			env := map[string]string{"HOME": kimiConfig(t, kimiTOML(srv.URL(), "")), "KIMI_MODEL_NAME": "", "KIMI_API_KEY": "", "KIMI_BASE_URL": srv.URL()}
			for k, v := range tt.env {
				env[k] = v
			}
			r := kimi(t, nil, invocation{env: env, args: append([]string{"-p", "x"}, tt.args...)})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := srv.Requests()[0].Body["model"]; got != tt.model {
				t.Errorf("model = %v, want %s", got, tt.model)
			}
		})
	}
}

func TestKimiModelGenerationVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		// want holds body fields; nil means the field must be absent.
		want map[string]any
	}{
		{name: "temperature, top_p and a completion cap",
			env:  map[string]string{"KIMI_MODEL_TEMPERATURE": "0.3", "KIMI_MODEL_TOP_P": "0.9", "KIMI_MODEL_MAX_COMPLETION_TOKENS": "777"},
			want: map[string]any{"temperature": 0.3, "top_p": 0.9, "max_completion_tokens": 777.0}},
		{name: "temperature 0 is sent", env: map[string]string{"KIMI_MODEL_TEMPERATURE": "0"}, want: map[string]any{"temperature": 0.0, "top_p": nil}},
		{name: "older name of the cap", env: map[string]string{"KIMI_MODEL_MAX_TOKENS": "555"}, want: map[string]any{"max_completion_tokens": 555.0}},
		{name: "the newer name wins", env: map[string]string{"KIMI_MODEL_MAX_TOKENS": "555", "KIMI_MODEL_MAX_COMPLETION_TOKENS": "666"}, want: map[string]any{"max_completion_tokens": 666.0}},
		{name: "nothing set sends nothing", want: map[string]any{"temperature": nil, "top_p": nil, "max_completion_tokens": nil}},
		{name: "the window caps the cap", env: map[string]string{"KIMI_MODEL_MAX_CONTEXT_SIZE": "20000", "KIMI_MODEL_MAX_COMPLETION_TOKENS": "100000"},
			want: map[string]any{"max_completion_tokens": "<20000"}},
		{name: "the cap caps the window", env: map[string]string{"KIMI_MODEL_MAX_CONTEXT_SIZE": "200000", "KIMI_MODEL_MAX_COMPLETION_TOKENS": "777"},
			want: map[string]any{"max_completion_tokens": 777.0}},
		{name: "0 turns the clamp off", env: map[string]string{"KIMI_MODEL_MAX_CONTEXT_SIZE": "20000", "KIMI_MODEL_MAX_COMPLETION_TOKENS": "0"},
			want: map[string]any{"max_completion_tokens": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)), scripted.Text("ok"))
			r := kimi(t, srv, invocation{env: tt.env, args: []string{"-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// Every request of the run carries them.
			for i, req := range srv.Requests() {
				for k, want := range tt.want {
					got, present := req.Body[k]
					switch {
					case want == nil:
						if present {
							t.Errorf("request %d: %s = %v, want it absent", i+1, k, got)
						}
					case want == "<20000":
						if n, _ := got.(float64); n <= 0 || n >= 20000 {
							t.Errorf("request %d: %s = %v, want below the window", i+1, k, got)
						}
					case got != want:
						t.Errorf("request %d: %s = %v, want %v", i+1, k, got, want)
					}
				}
			}
		})
	}
}

func TestKimiModelVariableErrors(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]map[string]string{
		"temperature": {"KIMI_MODEL_TEMPERATURE": "warm"},
		"top_p":       {"KIMI_MODEL_TOP_P": "1.5"},
		"cap":         {"KIMI_MODEL_MAX_COMPLETION_TOKENS": "lots"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := kimi(t, nil, invocation{env: env, args: []string{"-p", "x"}})
			if r.code != 2 || !strings.Contains(r.stderr, "KIMI_MODEL_") {
				t.Errorf("exit %d: %s", r.code, r.stderr)
			}
		})
	}
}

func TestKimiModelCapabilities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		env      map[string]string
		thinking any // the thinking field sent, nil for none
		stderr   string
	}{
		{name: "default_thinking applies", thinking: "enabled"},
		{name: "an always-thinking model gets no switch", env: map[string]string{"KIMI_MODEL_CAPABILITIES": "thinking, always_thinking"}, thinking: nil},
		{name: "a thinking model name gets no switch", env: map[string]string{"KIMI_MODEL_NAME": "kimi-k2-thinking-turbo"}, thinking: nil},
		{name: "unknown capabilities are a warning", env: map[string]string{"KIMI_MODEL_CAPABILITIES": "thinking,teleport"}, thinking: "enabled", stderr: `"teleport"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			env := map[string]string{"HOME": kimiConfig(t, kimiTOML(srv.URL(), "default_thinking = true")), "KIMI_MODEL_NAME": ""}
			for k, v := range tt.env {
				env[k] = v
			}
			r := kimi(t, nil, invocation{env: env, args: []string{"-p", "x"}})
			if r.code != 0 || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got, _ := srv.Requests()[0].Body["thinking"].(map[string]any)
			switch {
			case tt.thinking == nil && got != nil:
				t.Errorf("thinking = %v, want none", got)
			case tt.thinking != nil && (got == nil || got["type"] != tt.thinking):
				t.Errorf("thinking = %v, want %v", got, tt.thinking)
			}
		})
	}
}
