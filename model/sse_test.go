package model

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The filter hands go-openai only the data lines, whatever else the stream carries and
// however the bytes are split, and still finds an error object on a line of its own.
func TestSSEFilterKeepsOnlyData(t *testing.T) {
	in := ": OPENROUTER PROCESSING\n\n" +
		"event: message\nid: 7\nretry: 100\n" +
		"data: {\"choices\":[]}\n\n" +
		"  data: {\"x\":1}\r\n\r\n" +
		":" + strings.Repeat("k", 200000) + "\n" +
		"{\"error\":{\"message\":\"overloaded\",\"code\":529}}\n" +
		"data: [DONE]"
	want := "data: {\"choices\":[]}\n  data: {\"x\":1}\r\ndata: [DONE]"
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"halves":   iotest.HalfReader,
	} {
		t.Run(name, func(t *testing.T) {
			x := &exchange{}
			f := &sseFilter{body: io.NopCloser(wrap(strings.NewReader(in))), x: x}
			got, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("passed on %q\nwant %q", got, want)
			}
			if doc := x.streamError(); !bytes.Contains(doc, []byte("overloaded")) {
				t.Errorf("error document = %q", doc)
			}
		})
	}
}

// Memory stays bounded for a comment line of any length and any number of them: the
// filter keeps at most maxErrorBody of the current line.
func TestSSEFilterBoundedMemory(t *testing.T) {
	comments := io.MultiReader(strings.NewReader(":"), &repeatReader{b: []byte("x"), n: 8 << 20}, strings.NewReader("\n"),
		&repeatReader{b: []byte(": keep-alive\n\n"), n: 14 << 19}, strings.NewReader("data: {}\n"))
	f := &sseFilter{body: io.NopCloser(comments), x: &exchange{}}
	buf := make([]byte, 4096)
	var out []byte
	for {
		n, err := f.Read(buf)
		out = append(out, buf[:n]...)
		if c := cap(f.line) + cap(f.head) + cap(f.out); c > maxErrorBody+64<<10 {
			t.Fatalf("filter holds %d bytes", c)
		}
		if err != nil {
			break
		}
	}
	if string(out) != "data: {}\n" {
		t.Errorf("passed on %q", out)
	}
}

// repeatReader yields b over and over, n bytes in all.
type repeatReader struct {
	b   []byte
	n   int
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:min(len(p), k+r.n)], r.b[r.off:])
		k += c
		r.n -= c
		r.off = (r.off + c) % len(r.b)
	}
	return k, nil
}

// A proxy that answers 200 with a pretty-printed JSON error (no event stream at all): the
// document spread over lines is still found at the end of the body.
func TestSSEFilterMultiLineError(t *testing.T) {
	x := &exchange{}
	f := &sseFilter{body: io.NopCloser(strings.NewReader("{\n  \"error\": {\n    \"message\": \"model overloaded\",\n    \"type\": \"overloaded_error\"\n  }\n}\n")), x: x}
	if got, _ := io.ReadAll(f); len(got) != 0 {
		t.Errorf("passed on %q", got)
	}
	if b := parseErrorBody(x.streamError()); b.Message != "model overloaded" || b.Type != "overloaded_error" {
		t.Errorf("error document = %q", x.streamError())
	}
}

// One data line longer than the reply's line cap is cut in the filter, before go-openai
// (which holds a line whole) can buffer it: one 50 MB chunk cost 500 MB (issue 25 #3).
func TestSSEFilterCutsALineTooLong(t *testing.T) {
	size := newReplyMeter(1 << 20)
	line := io.MultiReader(strings.NewReader(`data: {"choices":[{"delta":{"content":"`), &repeatReader{b: []byte("x"), n: 64 << 20})
	f := &sseFilter{body: io.NopCloser(line), x: &exchange{size: size}}
	var read int64
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		read += int64(n)
		var tl *ReplyTooLargeError
		if errors.As(err, &tl) {
			break
		}
		if err != nil {
			t.Fatalf("err %v after %d bytes, want the reply cut", err, read)
		}
	}
	if read > size.lineMax()+64<<10 {
		t.Fatalf("passed on %d bytes of one line; the cap is %d", read, size.lineMax())
	}
}
