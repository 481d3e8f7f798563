// Package scrub removes the secrets kimi-run knows from everything it writes: its streams,
// the events, the tool output the model reads, the session's files, a task's output.log,
// the answer file and a cassette. A secret is matched in each form a command could print
// it in without meaning to hide it (forms): as it is, JSON-escaped, base64 (standard and
// URL alphabets, at each of the three offsets it can have inside a longer encoded text),
// hex (lower and upper case), URL-encoded and reversed. The forms are computed once, when
// the secret is registered; matching is one linear pass over the text for all of them
// (match.go).
package scrub

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// MinSecret is the shortest value scrubbed: a short "key" (a local server's placeholder)
// would mangle ordinary text. A form shorter than it is not matched either.
const MinSecret = 8

// Redacted replaces every form of a secret.
const Redacted = "[redacted]"

// Set holds every credential the run knows of: kimi-run's own (Add) and those it hands on
// (AddOther). It is safe for concurrent use: a token refreshed mid-run is added while tools
// run. The zero Set is empty and ready; a nil *Set scrubs nothing.
type Set struct {
	mu   sync.RWMutex
	vals []string // no duplicates
	own  []string // kimi-run's own credentials, a subset of vals
	// forms holds every form of every value, longest first, no duplicates; m finds them.
	forms [][]byte
	m     matcher
}

// Add registers credentials of kimi-run's own: scrubbed, and withheld from children.
func (s *Set) Add(secrets ...string) {
	for _, v := range secrets {
		s.register(v, true)
	}
}

// AddOther registers credentials kimi-run hands on: scrubbed, not withheld.
func (s *Set) AddOther(secrets ...string) {
	for _, v := range secrets {
		s.register(v, false)
	}
}

func (s *Set) register(secret string, own bool) {
	if len(secret) < MinSecret {
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
	for _, f := range forms(secret) {
		if !slices.ContainsFunc(s.forms, func(g []byte) bool { return bytes.Equal(f, g) }) {
			s.forms = append(s.forms, f)
		}
	}
	// Longest first: a form that contains a shorter one is replaced whole.
	slices.SortStableFunc(s.forms, func(a, b []byte) int { return len(b) - len(a) })
	s.m.build(s.forms)
}

// Environ is environ without the variables named in vars and those whose value holds a
// credential of kimi-run's own as it is (a config.toml api_key exported under another
// name, a login token); a variable named in pass is kept all the same.
func (s *Set) Environ(environ, vars, pass []string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(pass, k) || !slices.Contains(vars, k) && !slices.ContainsFunc(s.own, func(o string) bool { return strings.Contains(v, o) }) {
			out = append(out, kv)
		}
	}
	return out
}

// Forms returns every form of every registered secret.
func (s *Set) Forms() [][]byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.forms)
}

// List returns the registered secrets.
func (s *Set) List() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.vals)
}

// Bytes returns p with every form of every secret replaced, or p itself when it holds none.
func (s *Set) Bytes(p []byte) []byte {
	if s == nil {
		return p
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.forms) == 0 {
		return p
	}
	return s.clean(p, p)
}

// String returns v with every form of every secret replaced.
func (s *Set) String(v string) string {
	if s == nil {
		return v
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.forms) == 0 {
		return v
	}
	// A view of v, only read: clean copies what it changes.
	if out := s.clean(unsafe.Slice(unsafe.StringData(v), len(v)), nil); out != nil {
		return string(out)
	}
	return v
}

// clean returns p scrubbed, or same when p holds no form. The lock is held.
func (s *Set) clean(p, same []byte) []byte {
	out, ok := replace(&s.m, s.forms, p)
	if !ok {
		out = p
	}
	if u, wrapped := unwrapped(&s.m, s.forms, out); wrapped {
		return u
	}
	if !ok {
		return same
	}
	return out
}

// partial is the length of the longest end of p that begins a form without holding it
// whole: what a stream must hold back until it knows what follows.
func (s *Set) partial(p []byte) int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.forms) == 0 {
		return 0
	}
	for k := min(len(s.forms[0])-1, len(p)); k > 0; k-- {
		tail := p[len(p)-k:]
		if !s.m.first[tail[0]] {
			continue
		}
		for _, f := range s.forms {
			if len(f) > k && bytes.HasPrefix(f, tail) {
				return k
			}
		}
	}
	return 0
}
