package run

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
)

// secretSet holds every credential the run knows of (config.Secrets): kimi-run's own — the
// API keys of the environment and of the config file, used or not, custom header values,
// every stored login's tokens — and those it hands on (MCP servers', the OTLP
// exporter's). All are scrubbed from the process's streams, the answer file, the session
// files, hooks' input and tool output; kimi-run's own are also kept out of the environment
// of the commands the run starts (childEnviron). It is safe for concurrent use: a token
// refreshed mid-run is added while tools run.
type secretSet struct {
	mu   sync.RWMutex
	vals []string // each at least minSecret bytes, no duplicates
	// own holds kimi-run's own credentials, a subset of vals.
	own []string
	// forms holds each value and, when it differs, its JSON-escaped form (as it appears
	// inside a JSON document such as a hook's stdin).
	forms [][]byte
}

// minSecret is the shortest value scrubbed: a short "key" (a local server's placeholder)
// would mangle ordinary text.
const minSecret = 8

const redacted = "[redacted]"

// add registers a credential of kimi-run's own. Other parts of run (the OAuth login) call
// it with every token they obtain, before the token can reach any output.
func (s *secretSet) add(secrets ...string) {
	for _, v := range secrets {
		s.register(v, true)
	}
}

// addOther registers a credential kimi-run hands on: scrubbed, not withheld.
func (s *secretSet) addOther(secrets ...string) {
	for _, v := range secrets {
		s.register(v, false)
	}
}

func (s *secretSet) register(secret string, own bool) {
	if len(secret) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if own && !slices.Contains(s.own, secret) {
		s.own = append(s.own, secret)
	}
	if slices.Contains(s.vals, secret) {
		return
	}
	s.vals = append(s.vals, secret)
	s.forms = append(s.forms, []byte(secret))
	if q, err := json.Marshal(secret); err == nil {
		if esc := q[1 : len(q)-1]; string(esc) != secret {
			s.forms = append(s.forms, esc)
		}
	}
}

// hasOwn reports whether v contains a credential of kimi-run's own.
func (s *secretSet) hasOwn(v string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, o := range s.own {
		if strings.Contains(v, o) {
			return true
		}
	}
	return false
}

// allForms returns every form of every registered secret.
func (s *secretSet) allForms() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.forms)
}

// list returns the registered secrets.
func (s *secretSet) list() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.vals)
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
