package cassette

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/model"
)

const key = "sk-cassette-5ecret-0123456789"

// body is a chat-completions request with one user message.
func body(prompt string) string {
	return `{"model":"m","stream":true,"messages":[{"role":"system","content":"today is ` + time.Now().String() + `"},{"role":"user","content":"` + prompt + `"}],"tools":[{"type":"function","function":{"name":"Glob"}}]}`
}

func post(t *testing.T, c *http.Client, url, b string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	return c.Do(req)
}

// reads returns the body as the client's reads saw it, and how it ended.
func reads(r io.Reader) ([]string, error) {
	var out []string
	buf := make([]byte, 1<<16)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			out = append(out, string(buf[:n]))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
	}
}

// record plays the requests against srv through a Recorder and returns the cassette path
// and what the client read.
func record(t *testing.T, srv *scripted.Server, bodies ...string) (string, [][]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path, Header{Model: "m", BaseURL: srv.URL(), WorkDir: "/w"}, http.DefaultTransport, []string{key})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rec}
	var all [][]string
	for _, b := range bodies {
		resp, err := post(t, c, srv.URL(), b)
		if err != nil {
			all = append(all, []string{"error"})
			continue
		}
		got, _ := reads(resp.Body)
		resp.Body.Close()
		all = append(all, got)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path, all
}

func load(t *testing.T, path string) *Cassette {
	t.Helper()
	c, err := Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReplayKeepsTheReadBoundaries(t *testing.T) {
	srv := scripted.New(t, scripted.Reply(scripted.Say("one two"), scripted.Pause(30*time.Millisecond), scripted.Say("three")))
	path, recorded := record(t, srv, body("count"))
	c := load(t, path)
	if len(c.Exchanges) != 1 || c.Exchanges[0].Response.Status != 200 || c.Exchanges[0].End.Kind != EndEOF {
		t.Fatalf("cassette = %+v", c.Exchanges)
	}
	chunks := c.Exchanges[0].Chunks
	if last := chunks[len(chunks)-1]; last.AtMS < 30 {
		t.Errorf("the pause is not in the timing: last read at %d ms", last.AtMS)
	}
	p := NewReplayer(c)
	p.Speed = 0
	resp, err := post(t, &http.Client{Transport: p}, "http://replay.invalid/v1", body("count"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("Content-Type = %q", resp.Header.Get("Content-Type"))
	}
	got, err := reads(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(recorded[0], "|") {
		t.Errorf("replayed reads differ:\n got %q\nwant %q", got, recorded[0])
	}
	if p.Unused() != 0 {
		t.Errorf("%d exchanges unused", p.Unused())
	}
}

func TestSecretsNeverReachTheCassette(t *testing.T) {
	// The provider echoes the key in an error, and again split over two reads.
	half := len(key) / 2
	srv := scripted.New(t,
		scripted.Status(500, scripted.ErrorBody("server_error", "bad key "+key)),
		scripted.Reply(scripted.Raw(": "+key[:half]+"\n\n"), scripted.Pause(20*time.Millisecond), scripted.Raw(": "+key[half:]+"\n\n"), scripted.Say("ok")),
	)
	custom := "tenant-secret-header-value"
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path, Header{BaseURL: "https://user:" + key + "@example.com/v1"}, http.DefaultTransport, []string{key, custom})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: rec}
	for _, b := range []string{body("my key is " + key), body("again")} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("X-Tenant", custom)
		req.Header.Set("X-Api-Key", "another-credential")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	rec.Close()
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{key, key[:half+4], custom, "another-credential", "Bearer"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the cassette contains %q:\n%s", secret, raw)
		}
	}
	if !bytes.Contains(raw, []byte(Redacted)) {
		t.Errorf("nothing was redacted:\n%s", raw)
	}
	// Scrubbed, the cassette still replays: the live request is scrubbed the same way.
	p := NewReplayer(load(t, path))
	p.Secrets = []string{key}
	resp, err := post(t, &http.Client{Transport: p}, "http://x/v1", body("my key is "+key))
	if err != nil || resp.StatusCode != 500 {
		t.Fatalf("replay: %v %v", resp, err)
	}
}

// toolBody is a request after a Shell call whose output was out.
func toolBody(out string) string {
	return strings.Replace(body("test it"), `]`, `,{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"Shell","arguments":"{\"command\":\"go test\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"`+out+`"}]`, 1)
}

func TestStrictReplayFindsDivergence(t *testing.T) {
	srv := scripted.New(t, scripted.Text("first"), scripted.Text("second"), scripted.Text("third"))
	path, _ := record(t, srv, body("alpha"), body("beta"), toolBody(`ok  example.com/w 0.012s`))

	tests := []struct {
		name    string
		lenient bool
		exact   bool
		bodies  []string
		want    string // in the divergence; "" for none
	}{
		{name: "same", bodies: []string{body("alpha"), body("beta"), toolBody(`ok  example.com/w 0.012s`)}},
		// issue 21 #1: `go test` prints its timing; a strict replay leaves tool output out.
		{name: "tool output differs", bodies: []string{body("alpha"), body("beta"), toolBody(`ok  example.com/w 0.009s`)}},
		{name: "tool output differs, exact", exact: true, bodies: []string{body("alpha"), body("beta"), toolBody(`ok  example.com/w 0.009s`)},
			want: `message 4 (the result of Shell): content: recorded`},
		{name: "concurrent calls in another order", bodies: []string{body("beta"), body("alpha")}},
		{name: "changed message", bodies: []string{body("alpha"), body("gamma")}, want: `message 2 (user): content: recorded "beta", now "gamma"`},
		{name: "more calls", bodies: []string{body("alpha"), body("beta"), toolBody("x"), body("beta")}, want: "all of them were played"},
		{name: "other tools offered", bodies: []string{strings.Replace(body("alpha"), "Glob", "Grep", 1), body("beta")}},
		{name: "another system prompt", bodies: []string{strings.Replace(body("alpha"), "today", "tomorrow", 1), body("beta")}},
		{name: "one more message", bodies: []string{strings.Replace(body("alpha"), `]`, `,{"role":"user","content":"more"}]`, 1)},
			want: "the request has 3 messages, the recording 2"},
		{name: "lenient", lenient: true, bodies: []string{body("x"), body("y")}},
		{name: "lenient runs out too", lenient: true, bodies: []string{body("x"), body("y"), body("z"), body("w")}, want: "all of them were played"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewReplayer(load(t, path))
			p.Lenient, p.Exact = tt.lenient, tt.exact
			var seen *Divergence
			p.OnDivergence = func(d *Divergence) { seen = d }
			var err error
			for _, b := range tt.bodies {
				var resp *http.Response
				if resp, err = post(t, &http.Client{Transport: p}, "http://x/v1", b); err != nil {
					break
				}
				resp.Body.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected divergence: %v", err)
			case tt.want == "":
				return
			case seen == nil:
				t.Fatalf("no divergence reported (err %v)", err)
			case !strings.Contains(seen.Error(), tt.want):
				t.Errorf("divergence %q does not say %q", seen, tt.want)
			}
			var d *Divergence
			if !errors.As(err, &d) {
				t.Errorf("RoundTrip error %v is not the divergence", err)
			}
		})
	}
}

func TestRecordedFailuresReplay(t *testing.T) {
	t.Run("status and Retry-After", func(t *testing.T) {
		srv := scripted.New(t, scripted.Status(429, scripted.ErrorBody("rate_limit", "slow down")).Header("Retry-After", "7"))
		path, _ := record(t, srv, body("x"))
		resp, err := post(t, &http.Client{Transport: NewReplayer(load(t, path))}, "http://x/v1", body("x"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(string(b), "slow down") {
			t.Errorf("replayed %d %v %s", resp.StatusCode, resp.Header, b)
		}
	})
	t.Run("cut stream", func(t *testing.T) {
		srv := scripted.New(t, scripted.Reply(scripted.Say("half"), scripted.Cut()))
		path, _ := record(t, srv, body("x"))
		if k := load(t, path).Exchanges[0].End; k.Kind != EndError {
			t.Fatalf("end = %+v", k)
		}
		resp, err := post(t, &http.Client{Transport: NewReplayer(load(t, path))}, "http://x/v1", body("x"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := reads(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) == 0 {
			t.Errorf("reads %q, err %v", got, err)
		}
	})
	t.Run("no server", func(t *testing.T) {
		srv := scripted.New(t)
		url := srv.URL()
		path := filepath.Join(t.TempDir(), "c.jsonl")
		rec, _ := Create(path, Header{}, http.DefaultTransport, nil)
		closed := strings.Replace(url, "127.0.0.1", "127.0.0.1:1", 1)
		closed = closed[:strings.LastIndex(closed, ":")] + "/v1" // port 1: refused
		_, recErr := post(t, &http.Client{Transport: rec}, closed, body("x"))
		rec.Close()
		if recErr == nil {
			t.Skip("something listens on port 1")
		}
		_, err := post(t, &http.Client{Transport: NewReplayer(load(t, path))}, closed, body("x"))
		if err == nil || err.Error() != recErr.Error() {
			t.Errorf("replayed error %v, recorded %v", err, recErr)
		}
	})
	t.Run("client gave up", func(t *testing.T) {
		srv := scripted.New(t, scripted.Reply(scripted.Say("I will"), scripted.Hang()))
		path := filepath.Join(t.TempDir(), "c.jsonl")
		rec, _ := Create(path, Header{}, http.DefaultTransport, nil)
		giveUp := func(c *http.Client, url string) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body("x")))
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			buf := make([]byte, 4096)
			if _, err := resp.Body.Read(buf); err != nil {
				return err
			}
			cancel() // the first words came; then the stream goes silent and the client leaves
			_, err = io.ReadAll(resp.Body)
			return err
		}
		if err := giveUp(&http.Client{Transport: rec}, srv.URL()); !errors.Is(err, context.Canceled) {
			t.Fatalf("recording: %v", err)
		}
		rec.Close()
		if k := load(t, path).Exchanges[0].End.Kind; k != EndCancelled {
			t.Fatalf("end kind = %s", k)
		}
		if err := giveUp(&http.Client{Transport: NewReplayer(load(t, path))}, "http://x/v1"); !errors.Is(err, context.Canceled) {
			t.Errorf("replay: %v", err)
		}
	})
}

// TestReplayThroughTheModelClient drives the real go-openai client both ways: the reply
// assembled from the replay equals the recorded one, deltas included.
func TestReplayThroughTheModelClient(t *testing.T) {
	srv := scripted.New(t, scripted.Reply(scripted.Think("hmm"), scripted.Say("Looking."), scripted.Call("Glob", `{"pattern":"*.go"}`)))
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path, Header{}, http.DefaultTransport, []string{key})
	if err != nil {
		t.Fatal(err)
	}
	stream := func(rt http.RoundTripper, url string) (model.Reply, []string) {
		m := model.NewOpenAI(model.Config{BaseURL: url, APIKey: key, Model: "m", HTTPClient: &http.Client{Transport: rt}})
		var deltas []string
		h := model.Handler{
			Text:     func(d string) { deltas = append(deltas, "text:"+d) },
			Thinking: func(d string) { deltas = append(deltas, "think:"+d) },
			ToolCall: func(c model.CallSpec) { deltas = append(deltas, "call:"+c.Name+c.Arguments) },
		}
		r, err := m.Stream(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "go"}}}, h)
		if err != nil {
			t.Fatal(err)
		}
		return r, deltas
	}
	want, wantDeltas := stream(rec, srv.URL())
	rec.Close()
	got, gotDeltas := stream(NewReplayer(load(t, path)), "http://replay.invalid/v1")
	if got.Text != want.Text || got.Reasoning != want.Reasoning || len(got.ToolCalls) != 1 || got.ToolCalls[0] != want.ToolCalls[0] {
		t.Errorf("replayed reply %+v, recorded %+v", got, want)
	}
	if strings.Join(gotDeltas, "|") != strings.Join(wantDeltas, "|") {
		t.Errorf("deltas differ:\n got %q\nwant %q", gotDeltas, wantDeltas)
	}
}

func TestReadCassette(t *testing.T) {
	good := `{"kimi_run_cassette":1,"model":"m","base_url":"http://h/v1","work_dir":"/w"}
{"call":2,"request":{"method":"POST","path":"/v1/chat/completions","body":{}},"end":{"kind":"eof"}}
{"call":1,"request":{"method":"POST","path":"/v1/chat/completions","body":{}},"end":{"kind":"eof"}}
`
	c, err := Read(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Exchanges[0].Call != 1 || c.Exchanges[1].Call != 2 {
		t.Errorf("exchanges not in call order: %+v", c.Exchanges)
	}
	for name, bad := range map[string]string{
		"empty":          "",
		"future format":  `{"kimi_run_cassette":2}`,
		"not a cassette": `{"type":"init"}`,
		"garbage line":   `{"kimi_run_cassette":1}` + "\n{oops\n",
	} {
		_, err := Read(strings.NewReader(bad))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FormatError", name, err)
		}
	}
}
