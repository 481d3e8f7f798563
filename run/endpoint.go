package run

import (
	"errors"
	"net/url"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/model"
)

// endpointMistake turns a failure that no retry can fix into the usage error that names
// the setting to change: a TLS handshake that a plain-HTTP server answered (an https://
// base URL for an http:// port). Other errors are returned as they are.
func (r *runState) endpointMistake(err error) error {
	if !model.PlainHTTP(err) {
		return err
	}
	host, setting := "the endpoint", "its base URL"
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
	}
	if u, perr := url.Parse(r.s.Endpoint.BaseURL); perr == nil && (u.Host == host || host == "the endpoint") {
		setting = "the base URL " + config.RedactURL(r.s.Endpoint.BaseURL) + " (from " + r.s.BaseURLFrom() + ")"
	}
	return usagef("%s answers in plain HTTP, not TLS: write %s with http://, not https://", host, setting)
}
