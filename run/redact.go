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
	w      io.Writer
	secret []byte
}

const redacted = "[redacted]"

func newRedactWriter(w io.Writer, secret string) io.Writer {
	if len(secret) < 8 {
		// A short "key" (a local server's placeholder) would mangle ordinary text.
		return w
	}
	return &redactWriter{w: w, secret: []byte(secret)}
}

func (r *redactWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, r.secret) {
		return r.w.Write(p)
	}
	clean := bytes.ReplaceAll(p, r.secret, []byte(redacted))
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
