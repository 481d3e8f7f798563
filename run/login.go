package run

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/kimilogin"
)

// A provider written by Kimi CLI's `kimi login` has no api_key but an oauth reference; its
// token is stored under the share dir (kimilogin). These functions wire it into a run.

// loginSource is the stored login prov names, or nil when it names none. Kimi CLI reads
// the file for both storages ("keyring" logins are migrated to the file by Kimi itself).
func loginSource(prov providerConfig, getenv func(string) string) *kimilogin.Source {
	if prov.OAuth == nil || strings.TrimSpace(prov.OAuth.Key) == "" {
		return nil
	}
	share := shareDir(getenv)
	if share == "" {
		return nil
	}
	s := &kimilogin.Source{
		Path: filepath.Join(share, "credentials", kimilogin.FileName(prov.OAuth.Key)),
		Host: firstSet(getenv("KIMI_CODE_OAUTH_HOST"), getenv("KIMI_OAUTH_HOST")),
	}
	s.Headers = map[string]string{"X-Msh-Platform": "kimi_cli"}
	// Kimi CLI identifies its device to the OAuth host; its device id is reused when it
	// exists, never created.
	if b, err := os.ReadFile(filepath.Join(share, "device_id")); err == nil && strings.TrimSpace(string(b)) != "" {
		s.Headers["X-Msh-Device-Id"] = strings.TrimSpace(string(b))
	}
	return s
}

// useLogin puts the login's access token in place of the API key, refreshing it first
// when it is near its expiry. When the login is missing and the provider has a key of its
// own, the key is used, as in Kimi CLI.
func useLogin(ctx context.Context, cfg *config, warn func(string)) error {
	if cfg.login == nil {
		return nil
	}
	cfg.login.Warn = warn
	tok, err := cfg.login.AccessToken(ctx)
	switch {
	case err == nil:
		cfg.apiKey = tok
		return nil
	case errors.Is(err, kimilogin.ErrNoLogin) && cfg.apiKey != "":
		cfg.login = nil
		return nil
	case errors.Is(err, kimilogin.ErrNoLogin):
		return usagef("no API key and %w", err)
	}
	return err
}

// loginClient returns client (nil: the model's default, with idle as its header timeout)
// with every request carrying the login's current token, so a run that outlives the token
// refreshes it; client unchanged without a login.
func (cfg *config) loginClient(client *http.Client, idle time.Duration) *http.Client {
	if cfg.login == nil {
		return client
	}
	if client == nil {
		client = &http.Client{Transport: agent.NewTransport(idle)}
	}
	c := *client
	c.Transport = &loginTransport{base: client.Transport, src: cfg.login}
	return &c
}

// loginTransport sets the Authorization header from the login.
type loginTransport struct {
	base http.RoundTripper
	src  *kimilogin.Source
}

// RoundTrip sends req with the login's token. A 401 is answered as Kimi CLI answers it: the
// login is refreshed at once and the request sent again, once; a login the OAuth host
// refuses then ends the run as an authentication failure.
func (t *loginTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	for try := 0; ; try++ {
		tok, err := t.src.AccessToken(req.Context())
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		out := req.Clone(req.Context())
		out.Header.Set("Authorization", "Bearer "+tok)
		if try > 0 {
			if out.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err := base.RoundTrip(out)
		if err != nil || resp.StatusCode != http.StatusUnauthorized || try > 0 || req.GetBody == nil || !t.src.Rejected(tok) {
			return resp, err
		}
		resp.Body.Close()
	}
}
