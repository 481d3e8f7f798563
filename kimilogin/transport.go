package kimilogin

import (
	"errors"
	"net/http"
)

// Transport signs requests in with a stored login's current token, so that a run that
// outlives the token refreshes it, or else with a key.
type Transport struct {
	// Base sends the requests (http.DefaultTransport when nil).
	Base http.RoundTripper
	// Login is the stored login; nil signs with Key.
	Login *Source
	// Key signs a request when there is no login, and when no login is stored (any more)
	// and the request's body can be read again, as Kimi CLI resolves a service's
	// credential; "" leaves the login's error standing.
	Key string
}

// RoundTrip sends req with the login's token or the key. A 401 to the login's token is
// answered as Kimi CLI answers it: the login is refreshed at once and the request sent
// again, once; a login the OAuth host refuses then ends the call with that error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Login != nil {
		resp, err := t.withLogin(base, req)
		if !errors.Is(err, ErrNoLogin) || t.Key == "" || req.GetBody == nil {
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
	req.Header.Set("Authorization", "Bearer "+t.Key)
	return base.RoundTrip(req)
}

func (t *Transport) withLogin(base http.RoundTripper, req *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		tok, err := t.Login.AccessToken(req.Context())
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
		if err != nil || resp.StatusCode != http.StatusUnauthorized || try > 0 || req.GetBody == nil || !t.Login.Rejected(tok) {
			return resp, err
		}
		resp.Body.Close()
	}
}
