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
	size := NewReplyMeter(1 << 20)
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

// A body that is one JSON document, not an event stream (a server that ignored
// stream:true), passes nothing on as data and is kept whole for the client; an error
// document is recorded as the stream's error instead; JSON lines that are not one document
// are filtered as a stream after all; [DONE] is noted.
func TestSSEFilterWholeDocument(t *testing.T) {
	for _, tt := range []struct {
		name, body   string
		pass, plain  string
		errMsg       string
		done         bool
		tooLargeWith int64
	}{
		{name: "reply", body: "\n  {\"choices\":[{\"message\":{\"content\":\"hi\"}}]}\n", plain: `{"choices":[{"message":{"content":"hi"}}]}`},
		{name: "pretty reply", body: "{\n \"output\": [\n ]\n}", plain: "{\n \"output\": [\n ]\n}"},
		{name: "error", body: `{"error":{"message":"no such model"}}`, errMsg: "no such model"},
		{name: "json lines", body: "{\"error\":{\"message\":\"first\"}}\ndata: {\"x\":1}\n\ndata: [DONE]\n", pass: "data: {\"x\":1}\ndata: [DONE]\n", errMsg: "first", done: true},
		{name: "stream", body: ": hi\n\ndata: {\"x\":1}\n\ndata:[DONE]", pass: "data: {\"x\":1}\ndata:[DONE]", done: true},
		{name: "done inside text is not the end", body: "data: {\"c\":\"data: [DONE]\"}\n\n", pass: "data: {\"c\":\"data: [DONE]\"}\n"},
		{name: "document too large", body: `{"choices":[{"message":{"content":"` + strings.Repeat("x", 3<<20) + `"}}]}`, tooLargeWith: 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := &exchange{size: NewReplyMeter(tt.tooLargeWith)}
			f := &sseFilter{body: io.NopCloser(iotest.HalfReader(strings.NewReader(tt.body))), x: x}
			got, err := io.ReadAll(f)
			var tl *ReplyTooLargeError
			if tt.tooLargeWith > 0 {
				if !errors.As(err, &tl) || x.plainReply() != nil {
					t.Fatalf("err = %v, plain %d bytes: want the document cut", err, len(x.plainReply()))
				}
				return
			}
			if err != nil || string(got) != tt.pass {
				t.Errorf("passed on %q (%v), want %q", got, err, tt.pass)
			}
			if string(x.plainReply()) != tt.plain {
				t.Errorf("plain reply = %q, want %q", x.plainReply(), tt.plain)
			}
			if b := parseErrorBody(x.streamError()); tt.errMsg != "" && b.Message != tt.errMsg || tt.errMsg == "" && x.streamError() != nil {
				t.Errorf("error document = %q, want message %q", x.streamError(), tt.errMsg)
			}
			if x.sawDone() != tt.done {
				t.Errorf("done = %v, want %v", x.sawDone(), tt.done)
			}
		})
	}
}
