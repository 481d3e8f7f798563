package run

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
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
// with every request carrying the login's current token, so a run that outlives the token
// refreshes it; client unchanged without a login.
func (c credentials) loginClient(client *http.Client, idle time.Duration) *http.Client {
	if c.login == nil {
		return client
	}
	if client == nil {
		client = &http.Client{Transport: model.NewTransport(idle)}
	}
	cl := *client
	cl.Transport = &loginTransport{base: client.Transport, src: c.login}
	return &cl
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
