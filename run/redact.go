package run

import (
	"io"

	"github.com/kimi-run/kimi-run/internal/scrub"
)

// redactWriter scrubs the secrets from everything written through it. Every sink writes a
// line with one Write call, so a key never straddles two writes. The key can reach output
// in many ways — an error body quoted from the HTTP layer, a command the model ran that
// printed a config file — so it is removed at the last point before the process's
// streams rather than at each source.
type redactWriter struct {
	w       io.Writer
	secrets *scrub.Set
}

func (r *redactWriter) Write(p []byte) (int, error) {
	clean := r.secrets.Bytes(p)
	if _, err := r.w.Write(clean); err != nil {
		return 0, err
	}
	return len(p), nil
}
