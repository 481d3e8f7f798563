package run

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// credentials are the run's key and stored login as the run uses them: the settings' own,
// until useLogin puts the login's token in place of the key.
type credentials struct {
	apiKey string
	login  *kimilogin.Source
}

// useLogin puts the login's access token in place of the API key, refreshing it first
// when it is near its expiry. When the login is missing and the provider has a key of its
// own, the key is used, as in Kimi CLI.
func useLogin(ctx context.Context, e config.Endpoint, warn func(string)) (credentials, error) {
	c := credentials{apiKey: e.APIKey, login: e.Login}
	if c.login == nil {
		return c, nil
	}
	c.login.Warn = warn
	tok, err := c.login.AccessToken(ctx)
	switch {
	case err == nil:
		c.apiKey = tok
		return c, nil
	case errors.Is(err, kimilogin.ErrNoLogin) && c.apiKey != "":
		c.login = nil
		return c, nil
	case errors.Is(err, kimilogin.ErrNoLogin):
		return c, usagef("no API key and %w", err)
	}
	return c, err
}

// loginClient returns client (nil: the model's default, with idle as its header timeout)
// with every request carrying the login's current token (kimilogin.Transport); client
// unchanged without a login.
func (c credentials) loginClient(client *http.Client, idle time.Duration) *http.Client {
	if c.login == nil {
		return client
	}
	if client == nil {
		client = &http.Client{Transport: model.NewTransport(idle)}
	}
	cl := *client
	cl.Transport = &kimilogin.Transport{Base: client.Transport, Login: c.login}
	return &cl
}

// service is a configured Moonshot web service as the tools use it: signed in with its
// login's token (refreshed as the model's is, and once at once after a 401) or else its
// key, with kimi-run's User-Agent and the login's device headers under its custom headers.
// nil for a service the config does not have.
func (r *runState) service(s *config.Service) *tools.Service {
	if s == nil {
		return nil
	}
	headers := map[string]string{"User-Agent": "kimi-run/" + r.version}
	if s.Login != nil {
		maps.Copy(headers, s.Login.Headers)
	}
	maps.Copy(headers, s.Headers)
	// The transport's own timeouts bound the connection and the headers; the tools bound
	// the whole call.
	base := model.NewTransport(time.Minute)
	if proxy := r.guard.sandbox.ProxyURL(); proxy != nil {
		// --allow-host: the service's host must be allowed, as every host the run reaches
		// for the model's tools (FetchURL asks no service then, see tools.NewFetchURL).
		base.Proxy = http.ProxyURL(proxy)
	}
	return &tools.Service{URL: s.URL, Headers: headers, Client: &http.Client{Transport: &kimilogin.Transport{Base: base, Login: s.Login, Key: s.APIKey}}}
}
