package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// kimiConfig writes a Kimi CLI config.toml into a fresh HOME and returns that HOME.
func kimiConfig(t *testing.T, text string) string {
	t.Helper()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".kimi"), 0o700)
	if err := os.WriteFile(filepath.Join(home, ".kimi", "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestKimiConfigFile(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("SetTodoList", `{}`)).Forever())
	home := kimiConfig(t, `
default_model = "k2"

[models.k2]
provider = "moonshot"
model = "kimi-k2-from-config"
max_context_size = 200000

[providers.moonshot]
type = "kimi"
base_url = "`+srv.URL()+`"
api_key = "`+testKey+`"
custom_headers = { X-Team = "ci" }

[loop_control]
max_steps_per_turn = 2
`)
	env := map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
	r := kimi(t, nil, invocation{env: env, args: []string{"--output-format", "stream-json", "-p", "think"}})
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 from loop_control.max_steps_per_turn\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := reqs[0]
	if req.Body["model"] != "kimi-k2-from-config" || req.Header.Get("X-Team") != "ci" || req.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("request did not follow the config: model=%v headers=%v", req.Body["model"], req.Header)
	}
	// A kimi provider gets the thinking switch, off unless default_thinking says otherwise.
	if th, _ := req.Body["thinking"].(map[string]any); th["type"] != "disabled" {
		t.Errorf("thinking = %v", req.Body["thinking"])
	}
	// The configured window is known, so the completion is capped to what fits.
	if mct, _ := req.Body["max_completion_tokens"].(float64); mct <= 0 || mct >= 200000 {
		t.Errorf("max_completion_tokens = %v", req.Body["max_completion_tokens"])
	}
	// Flags still win over the file.
	r = kimi(t, nil, invocation{env: env, args: []string{"--max-steps", "1", "--model", "k2", "-p", "think"}})
	if r.code != 3 || len(srv.Requests()) != 3 {
		t.Errorf("--max-steps 1: exit %d after %d requests", r.code, len(srv.Requests()))
	}
}

func TestBadConfigFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{name: "syntax", text: "default_model = \n[models", want: "config file"},
		{name: "unknown provider", text: "default_model = \"m\"\n[models.m]\nprovider = \"nope\"\n", want: `provider "nope"`},
		{name: "a type not spoken", text: "default_model = \"m\"\n[models.m]\nprovider = \"a\"\n[providers.a]\ntype = \"carrier_pigeon\"\n", want: `type "carrier_pigeon", which kimi-run does not speak`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := kimiConfig(t, tt.text)
			r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_MODEL_NAME": ""}, args: []string{"-p", "x"}})
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
		})
	}
	r := kimi(t, nil, invocation{args: []string{"--config-file", "/nonexistent/config.toml", "-p", "x"}})
	if r.code != 2 || !strings.Contains(r.stderr, "config file") {
		t.Errorf("missing --config-file: exit %d: %s", r.code, r.stderr)
	}
}

// TestUnknownDefaultModelIsWarned: default_model naming no [models] entry is used as a model
// id, which may well be right, but never silently.
func TestUnknownDefaultModelIsWarned(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"default_model = \"nosuch\"\n",
		"default_model = \"nosuch\"\n[models.k2]\nprovider = \"p\"\n[providers.p]\ntype = \"kimi\"\n",
	} {
		srv := scripted.New(t, scripted.Text("ok"))
		r := kimi(t, srv, invocation{env: map[string]string{"HOME": kimiConfig(t, text), "KIMI_MODEL_NAME": ""}, args: []string{"-p", "x"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, `"nosuch"`) || !strings.Contains(r.stderr, "[models") {
			t.Errorf("no warning about default_model:\n%s", r.stderr)
		}
		if got := srv.Requests()[0].Body["model"]; got != "nosuch" {
			t.Errorf("model sent = %v", got)
		}
	}
	// A model named on the command line or in the environment is the user's own choice.
	srv := scripted.New(t, scripted.Text("ok"))
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": kimiConfig(t, "default_model = \"nosuch\"\n")}, args: []string{"-p", "x", "--model", "direct-id"}})
	if r.code != 0 || strings.Contains(r.stderr, "nosuch") || strings.Contains(r.stderr, "[models") {
		t.Errorf("exit %d, warned about a model given directly:\n%s", r.code, r.stderr)
	}
}
