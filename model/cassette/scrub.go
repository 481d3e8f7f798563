package cassette

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/kimi-run/kimi-run/internal/scrub"
)

// Redacted replaces every secret in a cassette.
const Redacted = "[redacted]"

// scrubber removes secrets from what is written to a cassette, in every form the run's
// own scrubber knows (scrub.Set; values under scrub.MinSecret bytes are left alone).
type scrubber struct{ set *scrub.Set }

func newScrubber(secrets []string) scrubber {
	s := scrubber{set: &scrub.Set{}}
	s.set.AddOther(secrets...)
	return s
}

func (s scrubber) bytes(b []byte) []byte { return s.set.Bytes(b) }

func (s scrubber) string(v string) string { return s.set.String(v) }

// secretHeader reports whether a request header carries credentials by its name alone.
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "password", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// requestHeaders returns the request headers to record: secret ones as "[redacted]",
// the rest scrubbed of secret values.
func (s scrubber) requestHeaders(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		if secretHeader(k) {
			out[k] = Redacted
			continue
		}
		out[k] = s.string(strings.Join(v, ", "))
	}
	return out
}

// chunks scrubs the body reads. A secret split across two reads is found in their
// concatenation; the reads it spans are merged into one first, so no part of it is left.
func (s scrubber) chunks(cs []Chunk) []Chunk {
	forms := s.set.Forms()
	if len(cs) == 0 || len(forms) == 0 {
		return cs
	}
	var all []byte
	ends := make([]int, len(cs)) // ends[i]: offset just past chunk i
	for i, c := range cs {
		all = append(all, c.bytes()...)
		ends[i] = len(all)
	}
	// joinNext[i]: chunk i must be merged with chunk i+1.
	joinNext := make([]bool, len(cs))
	for _, sec := range forms {
		for from := 0; ; {
			i := bytes.Index(all[from:], sec)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(sec)
			for k := range cs {
				if ends[k] > start && ends[k] < end {
					joinNext[k] = true
				}
			}
			from = end
		}
	}
	var out []Chunk
	var cur []byte
	for i, c := range cs {
		cur = append(cur, c.bytes()...)
		if joinNext[i] {
			continue
		}
		out = append(out, newChunk(c.AtMS, s.bytes(cur)))
		cur = nil
	}
	return out
}
