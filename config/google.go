package config

import (
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/gemini"
)

// Google's provider types, as Kimi CLI's config.toml names them: gemini (google_genai is
// its older name) for the Gemini API, vertexai for Vertex AI.
func googleType(t string) bool { return t == "gemini" || t == "google_genai" || t == "vertexai" }

// fromGoogle takes a Gemini or Vertex AI endpoint from a provider of the config file, the
// way Kimi CLI's google-genai client finds what the file leaves out: the key from
// GOOGLE_API_KEY, else GEMINI_API_KEY; for Vertex AI, the project and location from the
// provider's env table (Kimi CLI puts it in its own environment), else the environment
// (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION). Vertex AI takes a key (express mode) or a
// project with an Authorization header among the custom headers: kimi-run does not read
// Google's Application Default Credentials (docs/design.md).
func (s *Settings) fromGoogle(prov providerConfig, name, provName, baseURL string) error {
	e, getenv := &s.Endpoint, s.Env.Getenv
	penv := func(k string) string {
		if v, ok := prov.Env[k]; ok {
			return v
		}
		return getenv(k)
	}
	e.APIKey = firstSet(prov.APIKey, penv("GOOGLE_API_KEY"), penv("GEMINI_API_KEY"))
	cfg := model.Config{Protocol: prov.Type, APIKey: e.APIKey}
	if prov.Type == "vertexai" {
		e.Project, e.Location = penv("GOOGLE_CLOUD_PROJECT"), penv("GOOGLE_CLOUD_LOCATION")
		cfg.Project, cfg.Location = e.Project, e.Location
		if e.APIKey == "" && (e.Project == "" || !hasHeader(prov.CustomHeaders, "Authorization")) {
			return Usagef("config: provider %q of model %q has type vertexai but no api_key (Vertex AI express mode) nor GOOGLE_CLOUD_PROJECT with an Authorization header in custom_headers (e.g. \"Bearer \" and the output of `gcloud auth print-access-token`): kimi-run does not read Google's Application Default Credentials",
				provName, name)
		}
	}
	e.BaseURL = firstSet(baseURL, prov.BaseURL, gemini.DefaultBaseURL(cfg))
	return nil
}

// googleThinking is the thinking switch of a Gemini model without --thinking, as Kimi CLI
// sets it: on for a model that always thinks; default_thinking, when the file sets it,
// for a model with the thinking capability; otherwise unset (the model's default).
func googleThinking(fc *fileConfig, model string, capabilities []string) *bool {
	on := true
	switch {
	case alwaysThinking(model, capabilities):
		return &on
	case fc.DefaultThinking != nil && hasCapability(capabilities, "thinking"):
		v := *fc.DefaultThinking
		return &v
	}
	return nil
}

func hasCapability(caps []string, c string) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}
