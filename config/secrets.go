package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kimi-run/kimi-run/kimilogin"
)

// CredentialVars are the variables kimi-run reads a model key from. Their values are
// secrets whether used or not, and the variables never reach a command, a hook or an MCP
// server unless --pass-env names them.
var CredentialVars = []string{"KIMI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY"}

// Secrets are the credentials a run knows of, used or not (issue 26 #2). run/ scrubs all of
// them from everything it writes and everything the model reads.
type Secrets struct {
	// Own are kimi-run's credentials for the model: the CredentialVars' values, every
	// provider's api_key and custom header values (bar headers known to carry none),
	// and the access and refresh tokens of every `kimi login` stored in the share dir. A
	// command never gets them, nor any variable that holds one.
	Own []string
	// Others are credentials kimi-run hands on: the HTTP MCP servers' header values, the
	// stdio MCP servers' env values whose names say they are credentials, and the OTLP
	// exporter's header values. They are scrubbed but left in the environment commands
	// get, where the user put them.
	Others []string
}

func (s *Secrets) own(vals ...string)    { s.Own = appendSet(s.Own, vals...) }
func (s *Secrets) others(vals ...string) { s.Others = appendSet(s.Others, vals...) }

func appendSet(set []string, vals ...string) []string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(set, v) {
			set = append(set, v)
		}
	}
	return set
}

// envSecrets adds the keys of the environment and the stored logins: known before any
// file is read, so a run that stops on a bad config file still scrubs them.
func (s *Settings) envSecrets() {
	for _, k := range CredentialVars {
		s.Secrets.own(s.Env.Getenv(k))
	}
	if share := ShareDir(s.Env); share != "" {
		s.Secrets.own(kimilogin.StoredTokens(filepath.Join(share, "credentials"))...)
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"} {
		for _, kv := range strings.Split(s.Env.Getenv(k), ",") {
			name, v, _ := strings.Cut(kv, "=")
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
			s.Secrets.others(headerSecrets(strings.TrimSpace(name), v)...)
		}
	}
}

// fileSecrets adds every provider's key and custom header values of the config, sorted
// by provider so that the list does not depend on map order.
func (s *Settings) fileSecrets(fc *fileConfig) {
	names := make([]string, 0, len(fc.Providers))
	for name := range fc.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := fc.Providers[name]
		s.Secrets.own(p.APIKey)
		for h, v := range p.CustomHeaders {
			s.Secrets.own(headerSecrets(h, v)...)
		}
		for k, v := range p.Env {
			if slices.Contains(CredentialVars, k) || credentialName(k) {
				s.Secrets.own(v)
			}
		}
	}
}

// mcpSecrets adds the MCP servers' credentials, once their ${VAR}s are expanded.
func (s *Settings) mcpSecrets() {
	for _, srv := range s.MCP.Servers {
		for h, v := range srv.Headers {
			s.Secrets.others(headerSecrets(h, v)...)
		}
		for _, kv := range srv.Env {
			if k, v, _ := strings.Cut(kv, "="); credentialName(k) {
				s.Secrets.others(v)
			}
		}
	}
}

// inlineWarning is the warning for credentials given in --config's text: any process on
// the machine can read a command line (ps, /proc/PID/cmdline) while the run lasts, and
// the shell's history keeps it.
func inlineWarning(fc *fileConfig) string {
	var where []string
	for name, p := range fc.Providers {
		if strings.TrimSpace(p.APIKey) != "" {
			where = append(where, fmt.Sprintf("providers.%s.api_key", name))
		}
		for h, v := range p.CustomHeaders {
			if len(headerSecrets(h, v)) > 0 {
				where = append(where, fmt.Sprintf("providers.%s.custom_headers.%s", name, h))
			}
		}
	}
	where = append(where, inlineServiceCredentials(fc)...)
	if len(where) == 0 {
		return ""
	}
	sort.Strings(where)
	return fmt.Sprintf("--config holds a credential (%s): any process on this machine can read a command line (ps, /proc/PID/cmdline) and the shell's history keeps it; put the key in KIMI_API_KEY or in a file given with --config-file", strings.Join(where, ", "))
}

// plainHeaders are headers known to carry no credential; every other header's value is
// taken for one, as custom headers are how gateways and proxies take their keys.
var plainHeaders = []string{
	"accept", "accept-encoding", "accept-language", "content-type", "user-agent", "referer",
	"http-referer", "x-title", "openai-beta", "anthropic-beta", "anthropic-version",
	"x-msh-platform", "x-msh-version", "x-msh-device-name", "x-msh-device-model", "x-msh-os-version",
}

// headerSecrets are the secrets in a header: its value, and for an Authorization-style
// value ("Bearer TOKEN") the token alone too, which is what a file or a command shows.
func headerSecrets(name, value string) []string {
	name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
	if value == "" || slices.Contains(plainHeaders, name) {
		return nil
	}
	out := []string{value}
	if scheme, token, ok := strings.Cut(value, " "); ok && !strings.ContainsAny(scheme, "=:,") {
		out = append(out, strings.TrimSpace(token))
	}
	return out
}

// credentialName reports whether an environment variable's name says it holds a
// credential (GITHUB_TOKEN, DB_PASSWORD, X_API_KEY…).
func credentialName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
