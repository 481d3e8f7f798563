package run

import (
	"errors"
	"net/http"
	"time"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

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
		for k, v := range s.Login.Headers {
			headers[k] = v
		}
	}
	for k, v := range s.Headers {
		headers[k] = v
	}
	// The transport's own timeouts bound the connection and the headers; the tools bound
	// the whole call.
	base := model.NewTransport(time.Minute)
	if proxy := r.guard.sandbox.ProxyURL(); proxy != nil {
		// --allow-host: the service's host must be allowed, as every host the run reaches
		// for the model's tools (FetchURL asks no service then, see tools.NewFetchURL).
		base.Proxy = http.ProxyURL(proxy)
	}
	return &tools.Service{URL: s.URL, Headers: headers, Client: &http.Client{Transport: serviceAuth{base: base, key: s.APIKey, login: s.Login}}}
}

// serviceAuth signs a service's requests in: with the login's token when it names one
// that exists, else with its key, as Kimi CLI resolves a service's credential.
type serviceAuth struct {
	base  http.RoundTripper
	key   string
	login *kimilogin.Source
}

// RoundTrip implements http.RoundTripper.
func (t serviceAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.login != nil {
		resp, err := (&loginTransport{base: t.base, src: t.login}).RoundTrip(req)
		if !errors.Is(err, kimilogin.ErrNoLogin) || t.key == "" || req.GetBody == nil {
			return resp, err
		}
		// No stored login (any more): the key, on a fresh copy of the body.
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, gerr
		}
		req = req.Clone(req.Context())
		req.Body = body
	} else {
		req = req.Clone(req.Context())
	}
	req.Header.Set("Authorization", "Bearer "+t.key)
	return t.base.RoundTrip(req)
}
