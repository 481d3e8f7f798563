package gemini

import (
	"testing"

	"github.com/kimi-run/kimi-run/model"
)

// The endpoint is built as Google's genai SDK builds it (Kimi CLI's google_genai provider
// uses that SDK), from the provider's base_url, or Google's default when there is none.
func TestGeminiURL(t *testing.T) {
	const method = ":streamGenerateContent?alt=sse"
	for _, tt := range []struct {
		cfg  model.Config
		want string
	}{
		{model.Config{Protocol: "gemini", Model: "gemini-2.5-pro"}, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro"},
		{model.Config{Protocol: "google_genai", BaseURL: "https://generativelanguage.googleapis.com/", Model: "gemini-2.5-flash"}, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"},
		// A base URL that names the version already keeps it.
		{model.Config{Protocol: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta", Model: "gemini-2.5-flash"}, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"},
		{model.Config{Protocol: "gemini", BaseURL: "https://gw.example/google/v1", Model: "models/gemini-2.0-flash"}, "https://gw.example/google/v1/models/gemini-2.0-flash"},
		{model.Config{Protocol: "gemini", BaseURL: "https://gw.example/vertex-ai", Model: "tunedModels/mine"}, "https://gw.example/vertex-ai/v1beta/tunedModels/mine"},
		// Vertex AI: express mode with a key, or the project's models.
		{model.Config{Protocol: "vertexai", APIKey: "k", Model: "gemini-2.5-pro"}, "https://aiplatform.googleapis.com/v1beta1/publishers/google/models/gemini-2.5-pro"},
		{model.Config{Protocol: "vertexai", Project: "p1", Location: "us-east5", Model: "gemini-2.5-flash"}, "https://us-east5-aiplatform.googleapis.com/v1beta1/projects/p1/locations/us-east5/publishers/google/models/gemini-2.5-flash"},
		{model.Config{Protocol: "vertexai", Project: "p1", Model: "gemini-3-pro-preview"}, "https://aiplatform.googleapis.com/v1beta1/projects/p1/locations/global/publishers/google/models/gemini-3-pro-preview"},
		{model.Config{Protocol: "vertexai", BaseURL: "https://europe-west4-aiplatform.googleapis.com", Project: "p1", Location: "europe-west4", Model: "gemini-2.5-flash"}, "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/p1/locations/europe-west4/publishers/google/models/gemini-2.5-flash"},
		{model.Config{Protocol: "vertexai", APIKey: "k", Model: "projects/p2/locations/us/publishers/google/models/x"}, "https://aiplatform.googleapis.com/v1beta1/projects/p2/locations/us/publishers/google/models/x"},
	} {
		if got := geminiURL(tt.cfg); got != tt.want+method {
			t.Errorf("%+v:\n got %s\nwant %s", tt.cfg, got, tt.want+method)
		}
	}
}

func TestAPIVersion(t *testing.T) {
	for seg, want := range map[string]bool{"v1": true, "v1beta": true, "v1beta1": true, "v2alpha": true, "vertex": false, "v": false, "openai": false, "": false} {
		if apiVersion(seg) != want {
			t.Errorf("apiVersion(%q) = %v", seg, !want)
		}
	}
}
