package scrub

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// forms returns the forms of secret that are matched, each at least MinSecret bytes.
func forms(secret string) [][]byte {
	out := []string{secret}
	if q, err := json.Marshal(secret); err == nil {
		out = append(out, string(q[1:len(q)-1]))
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for offset := range 3 {
			out = append(out, base64Core(enc, secret, offset))
		}
	}
	h := hex.EncodeToString([]byte(secret))
	out = append(out, h, strings.ToUpper(h), url.QueryEscape(secret), url.PathEscape(secret), reverse(secret))
	var forms [][]byte
	for _, f := range out {
		if len(f) >= MinSecret && !slices.ContainsFunc(forms, func(g []byte) bool { return string(g) == f }) {
			forms = append(forms, []byte(f))
		}
	}
	return forms
}

// base64Core is the part of the base64 text of a longer stream that depends on secret
// alone, when secret starts offset bytes (0, 1 or 2) into a group of three: the characters
// that also carry bits of the bytes before or after it are left out.
func base64Core(enc *base64.Encoding, secret string, offset int) string {
	e := enc.EncodeToString(append(make([]byte, offset), secret...))
	from := (8*offset + 5) / 6           // the characters that hold bits of the bytes before
	to := 8 * (offset + len(secret)) / 6 // the last, when partial, holds bits of those after
	if from >= to {
		return ""
	}
	return e[from:to]
}

// reverse returns s with its bytes in the opposite order (`rev` of an ASCII key).
func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}
