package run

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
)

// secretSet holds kimi-run's own credentials: the API keys of the environment and of the
// config file (also those the environment overrides), and any token a login brings. They
// are scrubbed from the process's streams, the answer file, hooks' input and tool output,
// and kept out of the environment of the commands the run starts (childEnviron). It is
// safe for concurrent use: a token refreshed mid-run is added while tools run.
type secretSet struct {
	mu   sync.RWMutex
	vals []string // each at least minSecret bytes, no duplicates
	// forms holds each value and, when it differs, its JSON-escaped form (as it appears
	// inside a JSON document such as a hook's stdin).
	forms [][]byte
}

// minSecret is the shortest value scrubbed: a short "key" (a local server's placeholder)
// would mangle ordinary text.
const minSecret = 8

const redacted = "[redacted]"

// add registers a secret. Other parts of run (the OAuth login) call it with every token
// they obtain, before the token can reach any output.
func (s *secretSet) add(secret string) {
	if len(secret) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.vals {
		if v == secret {
			return
		}
	}
	s.vals = append(s.vals, secret)
	s.forms = append(s.forms, []byte(secret))
	if q, err := json.Marshal(secret); err == nil {
		if esc := q[1 : len(q)-1]; string(esc) != secret {
			s.forms = append(s.forms, esc)
		}
	}
}

// has reports whether v contains a registered secret.
func (s *secretSet) has(v string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(v, string(f)) {
			return true
		}
	}
	return false
}

// scrubBytes returns p with every secret replaced, or p itself when it holds none.
func (s *secretSet) scrubBytes(p []byte) []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	clean := p
	for _, f := range s.forms {
		if bytes.Contains(clean, f) {
			clean = bytes.ReplaceAll(clean, f, []byte(redacted))
		}
	}
	return clean
}

// scrub returns v with every secret replaced.
func (s *secretSet) scrub(v string) string {
	if s == nil {
		return v
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		v = strings.ReplaceAll(v, string(f), redacted)
	}
	return v
}

// redactWriter scrubs the secrets from everything written through it. Every sink writes a
// line with one Write call, so a key never straddles two writes. The key can reach output
// in many ways — an error body quoted from the HTTP layer, a command the model ran that
// printed a config file — so it is removed at the last point before the process's
// streams rather than at each source.
type redactWriter struct {
	w       io.Writer
	secrets *secretSet
}

func newRedactWriter(w io.Writer, secrets *secretSet) *redactWriter {
	return &redactWriter{w: w, secrets: secrets}
}

func (r *redactWriter) Write(p []byte) (int, error) {
	clean := r.secrets.scrubBytes(p)
	if _, err := r.w.Write(clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// scrub removes the registered secrets from s, as Write does.
func (r *redactWriter) scrub(s string) string { return r.secrets.scrub(s) }

// redact removes the API key from a string.
func redact(s, secret string) string {
	if len(secret) < minSecret {
		return s
	}
	return strings.ReplaceAll(s, secret, redacted)
}
