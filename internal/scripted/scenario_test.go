package scripted_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestParseBody checks the bytes a parsed scenario puts on the wire.
func TestParseBody(t *testing.T) {
	const file = "prose\r\n" +
		"-- one --\n" +
		"HTTP/1.1 201 Created\n" +
		"Content-Type: text/event-stream\n" +
		"X-Extra:  two words \n" +
		"\n" +
		"data: {}\n" +
		"\n" +
		"#!repeat 3 : ka\n" +
		"#!repeat 2\n" +
		"#!sleep 1ms\n" +
		"#!repeat 2 \"x\\n\"\n" +
		"data: [DONE]\n" +
		"-- two --\n" +
		"HTTP/1.1 404 Not Found\n" +
		"#!forever\n" +
		"\n" +
		"#! not a directive in a plain body? it is one\n"
	if _, err := scripted.Parse([]byte(file)); err == nil {
		t.Fatal("Parse accepted an unknown directive")
	}
	rs, err := scripted.Parse([]byte(strings.Replace(file, "#! not a directive in a plain body? it is one\n", "gone\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := scripted.New(t, rs...)
	post := func() (*http.Response, string) {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post()
	const want = "data: {}\n\n: ka\n: ka\n: ka\n\n\nx\nx\ndata: [DONE]\n"
	if resp.StatusCode != 201 || resp.Header.Get("X-Extra") != "two words" || body != want {
		t.Errorf("got %d %q %q, want 201 %q %q", resp.StatusCode, resp.Header.Get("X-Extra"), body, "two words", want)
	}
	for range 2 {
		if resp, body := post(); resp.StatusCode != 404 || body != "gone\n" {
			t.Errorf("got %d %q, want 404 \"gone\\n\" forever", resp.StatusCode, body)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]string{
		"no sections":        "just prose\n",
		"no status line":     "-- a --\nContent-Type: text/plain\n\nbody\n",
		"bad code":           "-- a --\nHTTP/1.1 abc OK\n\n",
		"header sans colon":  "-- a --\nHTTP/1.1 200 OK\nnot a header\n\n",
		"body directive":     "-- a --\nHTTP/1.1 200 OK\n#!cut\n\n",
		"bad headers-delay":  "-- a --\nHTTP/1.1 200 OK\n#!headers-delay soon\n\n",
		"unknown directive":  "-- a --\nHTTP/1.1 200 OK\n\n#!explode\n",
		"bad repeat count":   "-- a --\nHTTP/1.1 200 OK\n\n#!repeat many x\n",
		"bad repeat quoting": "-- a --\nHTTP/1.1 200 OK\n\n#!repeat 2 \"open\n",
		"bad sleep":          "-- a --\nHTTP/1.1 200 OK\n\n#!sleep a while\n",
		"cut with argument":  "-- a --\nHTTP/1.1 200 OK\n\n#!cut now\n",
	}
	for name, file := range tests {
		if _, err := scripted.Parse([]byte(file)); err == nil {
			t.Errorf("%s: Parse accepted %q", name, file)
		}
	}
}

// TestHangDirective checks that #!hang holds the stream open and that the
// server still closes cleanly at the end of the test.
func TestHangDirective(t *testing.T) {
	rs, err := scripted.Parse([]byte("-- a --\nHTTP/1.1 200 OK\nContent-Type: text/event-stream\n\ndata: {\"choices\":[]}\n\n#!hang\ndata: [DONE]\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := scripted.New(t, rs...)
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(resp.Body, buf, len("data: {\"choices\":[]}\n\n"))
	if err != nil || string(buf[:n]) != "data: {\"choices\":[]}\n\n" {
		t.Errorf("read %q, %v before the hang", buf[:n], err)
	}
}
