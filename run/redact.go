package run

import (
	"bytes"
	"io"
	"strings"
)

// redactWriter scrubs the API key from everything written through it. Every sink writes a
// line with one Write call, so a key never straddles two writes. The key can reach output
// in many ways — an error body quoted from the HTTP layer, a command the model ran that
// printed the environment — so it is removed at the last point before the process's
// streams rather than at each source.
type redactWriter struct {
	w       io.Writer
	secrets [][]byte
}

const redacted = "[redacted]"

func newRedactWriter(w io.Writer) *redactWriter { return &redactWriter{w: w} }

// add registers a secret. Call it before anything is written that could contain it; the
// writers are not locked. A short "key" (a local server's placeholder) is not scrubbed: it
// would mangle ordinary text.
func (r *redactWriter) add(secret string) {
	if len(secret) >= 8 {
		r.secrets = append(r.secrets, []byte(secret))
	}
}

func (r *redactWriter) Write(p []byte) (int, error) {
	dirty := false
	for _, s := range r.secrets {
		if bytes.Contains(p, s) {
			dirty = true
		}
	}
	if !dirty {
		return r.w.Write(p)
	}
	clean := p
	for _, s := range r.secrets {
		clean = bytes.ReplaceAll(clean, s, []byte(redacted))
	}
	if _, err := r.w.Write(clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redact removes the API key from a string.
func redact(s, secret string) string {
	if len(secret) < 8 {
		return s
	}
	return strings.ReplaceAll(s, secret, redacted)
}
