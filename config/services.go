package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/kimi-run/kimi-run/kimilogin"
)

// Services are Moonshot's web services of the config file, as Kimi CLI reads them
// ([services.moonshot_search], [services.moonshot_fetch]; `kimi login` writes both).
type Services struct {
	// Search gives the agent SearchWeb; nil leaves it out.
	Search *Service
	// Fetch makes FetchURL ask this service first and fall back to a plain GET; nil goes
	// straight to the GET.
	Fetch *Service
}

// Service is one web service: where it is and how to sign in to it.
type Service struct {
	// URL is the service's base_url: the requests are POSTed to it as it is.
	URL string
	// APIKey is its api_key (a secret), used when it names no login or the login is gone.
	APIKey string
	// Headers are its custom_headers, sent with every request.
	Headers map[string]string
	// Login is the stored `kimi login` its oauth names, or nil. A login the model's provider
	// names too is the same Source, so a refresh serves both.
	Login *kimilogin.Source
}

// serviceConfig is one [services.NAME] table, in Kimi CLI's layout.
type serviceConfig struct {
	BaseURL       string            `json:"base_url"`
	APIKey        string            `json:"api_key"`
	CustomHeaders map[string]string `json:"custom_headers"`
	OAuth         *oauthRef         `json:"oauth"`
}

// serviceNames are the services kimi-run knows, by their table's name.
var serviceNames = []string{"moonshot_search", "moonshot_fetch"}

// services reads [services] from the file's tree: the table names the typed view of the
// file does not decode. A service that cannot work is a usage error, as Kimi CLI refuses
// the file; one without a credential is left out with a warning.
func (s *Settings) resolveServices(fc *fileConfig) error {
	tree, _ := fc.tree()["services"].(map[string]any)
	names := make([]string, 0, len(tree))
	for name := range tree {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var sc serviceConfig
		if err := decodeSection(tree[name], &sc); err != nil {
			return Usagef("config: services.%s: %v", name, err)
		}
		switch name {
		case "moonshot_search", "moonshot_fetch":
		default:
			s.Warnings = append(s.Warnings, fmt.Sprintf("config: services.%s is not a service Kimi CLI or kimi-run knows (they know %s): ignored", name, strings.Join(serviceNames, ", ")))
			continue
		}
		u, err := url.Parse(sc.BaseURL)
		if strings.TrimSpace(sc.BaseURL) == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Usagef("config: services.%s.base_url %q is not an http(s) URL", name, RedactURL(sc.BaseURL))
		}
		svc := &Service{URL: sc.BaseURL, APIKey: strings.TrimSpace(sc.APIKey), Headers: sc.CustomHeaders,
			Login: loginSource(providerConfig{OAuth: sc.OAuth}, s.Env)}
		if l, own := svc.Login, s.Endpoint.Login; l != nil && own != nil && l.Path == own.Path {
			svc.Login = own
		}
		if svc.APIKey == "" && svc.Login == nil {
			tool := "SearchWeb is left out"
			if name == "moonshot_fetch" {
				tool = "FetchURL fetches pages itself"
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("config: services.%s has no api_key and no oauth login: %s", name, tool))
			continue
		}
		if name == "moonshot_search" {
			s.Services.Search = svc
		} else {
			s.Services.Fetch = svc
		}
	}
	return nil
}

// decodeSection decodes one table of the file's tree (TOML or JSON values) into v.
func decodeSection(table any, v any) error {
	if _, ok := table.(map[string]any); !ok {
		return errors.New("is not a table")
	}
	raw, err := json.Marshal(table)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		// The message names a field and a type, never the value (it may be a key).
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s must be %s, not %s", te.Field, te.Type, te.Value)
		}
		return errors.New("does not decode")
	}
	return nil
}

// serviceConfigs are the [services] tables that decode, by name, sorted.
func serviceConfigs(fc *fileConfig) ([]string, map[string]serviceConfig) {
	tree, _ := fc.tree()["services"].(map[string]any)
	out := make(map[string]serviceConfig, len(tree))
	var names []string
	for name, table := range tree {
		var sc serviceConfig
		if decodeSection(table, &sc) == nil {
			out[name] = sc
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, out
}

// serviceSecrets adds the services' keys and custom header values, with the providers'
// (fileSecrets): known before anything else of the file is checked.
func (s *Settings) serviceSecrets(fc *fileConfig) {
	names, scs := serviceConfigs(fc)
	for _, name := range names {
		sc := scs[name]
		s.Secrets.own(sc.APIKey)
		for h, v := range sc.CustomHeaders {
			s.Secrets.own(headerSecrets(h, v)...)
		}
	}
}

// inlineServiceCredentials are the services' credentials given in --config's text, for
// its warning.
func inlineServiceCredentials(fc *fileConfig) []string {
	var where []string
	names, scs := serviceConfigs(fc)
	for _, name := range names {
		sc := scs[name]
		if strings.TrimSpace(sc.APIKey) != "" {
			where = append(where, fmt.Sprintf("services.%s.api_key", name))
		}
		for h, v := range sc.CustomHeaders {
			if len(headerSecrets(h, v)) > 0 {
				where = append(where, fmt.Sprintf("services.%s.custom_headers.%s", name, h))
			}
		}
	}
	return where
}
