package scrub

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

const key = "sk-kimi-Zq8#Lw2/Pm+Rt5&Yx9 Vn4=Bc7"

// TestTransformedSecretIsScrubbed: every form a command could print a key in without
// meaning to hide it is scrubbed, alone or inside a longer text of the same kind.
func TestTransformedSecretIsScrubbed(t *testing.T) {
	var s Set
	s.Add(key)
	rev := []byte(key)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	cases := map[string]string{
		"raw":           "export KIMI_API_KEY=" + key + "\n",
		"json":          `{"k":"` + strings.ReplaceAll(key, "&", `\u0026`) + `"}`,
		"hex":           hex.EncodeToString([]byte(key)),
		"HEX":           strings.ToUpper(hex.EncodeToString([]byte(key))),
		"query":         "https://x.test/?k=" + url.QueryEscape(key),
		"path":          "https://x.test/" + url.PathEscape(key),
		"reversed":      string(rev),
		"hex in a dump": hex.EncodeToString([]byte("prefix " + key + " suffix")),
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for offset := range 3 {
			for tail := range 3 {
				plain := strings.Repeat("a", offset) + key + strings.Repeat("z", tail)
				cases["base64 "+enc.EncodeToString([]byte("ab"))[:0]+string(rune('0'+offset))+string(rune('0'+tail))+map[bool]string{true: " std", false: " url"}[enc == base64.StdEncoding]] = enc.EncodeToString([]byte("config: " + plain + "\n"))
				cases["base64 alone "+string(rune('0'+offset))+map[bool]string{true: " std", false: " url"}[enc == base64.StdEncoding]] = enc.EncodeToString([]byte(plain))
			}
		}
	}
	for name, text := range cases {
		got := s.String(text)
		if !strings.Contains(got, Redacted) {
			t.Errorf("%s: %q not scrubbed", name, text)
		}
		if b := s.Bytes([]byte(text)); string(b) != got {
			t.Errorf("%s: Bytes %q, String %q", name, b, got)
		}
	}
	if got := s.String("nothing to see"); got != "nothing to see" {
		t.Errorf("clean text changed: %q", got)
	}
}

// TestWriterScrubsAcrossWrites: a secret cut in two by the writes is scrubbed whole.
func TestWriterScrubsAcrossWrites(t *testing.T) {
	var s Set
	s.Add(key)
	text := "line one\nkey=" + key + "\nhex=" + hex.EncodeToString([]byte(key)) + "\nend"
	for size := 1; size <= len(text); size++ {
		var out bytes.Buffer
		w := NewWriter(&out, &s)
		for i := 0; i < len(text); i += size {
			if _, err := w.Write([]byte(text[i:min(i+size, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if want := s.String(text); out.String() != want {
			t.Fatalf("writes of %d bytes: %q, want %q", size, out.String(), want)
		}
	}
}

// BenchmarkScrub is the cost of scrubbing 32 KiB of command output (a pipe's read) with
// the keys a run typically knows.
func BenchmarkScrub(b *testing.B) {
	var s Set
	s.Add("sk-kimi-7f3a9c1e5b2d8f4a6c0e9b1d3f5a7c9e", "sk-proj-4b6d8f0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e")
	s.AddOther("ghp_1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f", "otlp-header-token-5e6f7a8b")
	line := "2026-11-29T03:00:00Z INFO build step 42 compiled package github.com/x/y in 1.2s (cache miss)\n"
	text := []byte(strings.Repeat(line, 32<<10/len(line)))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s.Bytes(text)
	}
}

// TestEveryFormAtEveryOffset: the matcher reads the text at every step-th position only; a
// form is found wherever it begins, next to another, and at the text's end.
func TestEveryFormAtEveryOffset(t *testing.T) {
	var s Set
	s.Add(key, "short-k1")
	for _, f := range s.Forms() {
		for pre := range 2*step + 1 {
			for _, text := range []string{
				strings.Repeat(".", pre) + string(f),
				strings.Repeat(".", pre) + string(f) + string(f) + "!",
				strings.Repeat(".", pre) + string(f[:len(f)-1]) + " " + string(f),
			} {
				got := s.String(text)
				if strings.Contains(got, string(f)) || !strings.Contains(got, Redacted) {
					t.Fatalf("%q: %q", text, got)
				}
			}
		}
	}
}

func TestJSONForms(t *testing.T) {
	var s Set
	s.Add(`sk-<quote>"&key`)
	in := `{"a":"sk-\u003cquote\u003e\"\u0026key","b":"sk-<quote>"&key"}`
	if got := s.String(in); strings.Contains(got, "key") {
		t.Errorf("scrub left the secret: %s", got)
	}
}

// wrap breaks s into lines of width characters, as `base64` and PEM encoders do.
func wrap(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	b.WriteString(s + "\n")
	return b.String()
}

// TestWrappedBase64IsScrubbed: a key in base64 wrapped into lines is scrubbed wherever the
// line break falls in its encoding; other text, lines of base64 included, is left as it is.
func TestWrappedBase64IsScrubbed(t *testing.T) {
	var s Set
	s.Add(key)
	for _, width := range []int{64, 76} {
		for pre := range 2 * width {
			plain := "[providers.p]\n" + strings.Repeat("#", pre) + "\napi_key = \"" + key + "\"\n# the end of the file, some more text\n"
			text := "before\n" + wrap(base64.StdEncoding.EncodeToString([]byte(plain)), width) + "(after)\n"
			got := s.String(text)
			if !strings.Contains(got, Redacted) || !strings.HasPrefix(got, "before\n") || !strings.HasSuffix(got, "\n(after)\n") {
				t.Fatalf("width %d, %d before the key: %q", width, pre, got)
			}
		}
	}
	other := "x\n" + wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("nothing secret here ", 20))), 76) + "y"
	if got := s.String(other); got != other {
		t.Errorf("clean wrapped base64 changed:\n%s", got)
	}
}

// TestWriterHoldsBackOnlyABeginning: output is in the file at once (a running task's log is
// read while it runs), but for an end that begins a secret.
func TestWriterHoldsBackOnlyABeginning(t *testing.T) {
	var s Set
	s.Add(key)
	var out bytes.Buffer
	w := NewWriter(&out, &s)
	w.Write([]byte("starting\n"))
	if out.String() != "starting\n" {
		t.Fatalf("held back %q", "starting\n")
	}
	w.Write([]byte("key=" + key[:5]))
	if out.String() != "starting\nkey=" {
		t.Fatalf("wrote %q; want the key's beginning held back", out.String())
	}
	w.Write([]byte(key[5:] + "\n"))
	w.Close()
	if out.String() != "starting\nkey="+Redacted+"\n" {
		t.Fatalf("wrote %q", out.String())
	}
}

// TestWriterScrubsWrappedBase64AcrossWrites: a key's base64 wrapped into lines, its lines
// cut anywhere by the writes, does not come out.
func TestWriterScrubsWrappedBase64AcrossWrites(t *testing.T) {
	var s Set
	s.Add(key)
	for _, width := range []int{20, 76} {
		encoded := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("0", 40) + key))
		text := "before\n" + wrap(encoded, width) + "(after)\n"
		for size := 1; size <= len(text); size++ {
			var out bytes.Buffer
			w := NewWriter(&out, &s)
			for i := 0; i < len(text); i += size {
				w.Write([]byte(text[i:min(i+size, len(text))]))
			}
			w.Close()
			// The stretch of the encoding that depends on the key alone.
			if got := out.String(); !strings.Contains(got, Redacted) || strings.Contains(strings.ReplaceAll(got, "\n", ""), encoded[56:90]) {
				t.Fatalf("width %d, writes of %d bytes: %q", width, size, got)
			}
		}
	}
}
