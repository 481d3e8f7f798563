package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Service is a web service a tool calls for the model: Moonshot's search and fetch services
// ([services.moonshot_search], [services.moonshot_fetch] in Kimi CLI's config).
type Service struct {
	// URL is where requests are POSTed.
	URL string
	// Headers go with every request (the User-Agent, the config's custom headers).
	Headers map[string]string
	// Client sends the requests and signs them in (run/ sets the Authorization header
	// from the service's key or login); nil is http.DefaultClient, unsigned.
	Client *http.Client
}

// serviceError is a call to a service that did not give an answer: no connection, a
// timeout, or a status other than 200.
type serviceError struct {
	status  int    // the HTTP status, 0 when none came
	timeout bool   // the time ran out
	detail  string // what went wrong, for the model
}

func (e *serviceError) Error() string { return e.detail }

// post sends body as JSON to the service, with the tool call's id as Kimi CLI sends it
// (X-Msh-Tool-Call-Id), and returns the answer's body, read up to max bytes (cut says more
// came). The context's deadline and timeout, whichever comes first, bound the whole call.
func (s *Service) post(ctx context.Context, body any, accept string, timeout time.Duration, max int64) (data []byte, cut bool, err error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(raw))
	if err != nil {
		return nil, false, &serviceError{detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if id := CallID(ctx); id != "" {
		req.Header.Set("X-Msh-Tool-Call-Id", id)
	}
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, false, &serviceError{timeout: true, detail: fmt.Sprintf("no answer within %s", timeout)}
		}
		return nil, false, &serviceError{detail: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, false, &serviceError{status: resp.StatusCode, detail: "HTTP " + resp.Status + errorSnippet(resp)}
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, false, &serviceError{timeout: true, detail: fmt.Sprintf("the answer did not finish within %s", timeout)}
		}
		return nil, false, &serviceError{detail: err.Error()}
	}
	if int64(len(data)) > max {
		return data[:max], true, nil
	}
	return data, false, nil
}
