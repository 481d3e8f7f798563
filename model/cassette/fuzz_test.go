package cassette

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzReplay reads arbitrary cassette files and plays the first exchange to a request:
// a damaged cassette is an error, never a panic or a hang.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"kimi_run_cassette":1,"work_dir":"/w"}
{"call":1,"request":{"body":{"messages":[{"role":"user","content":"hi"}]}},"response":{"status":200},"chunks":[{"data":"data: x\n\n"},{"base64":"/w=="}],"end":{"kind":"eof"}}
`), []byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"kimi_run_cassette":1}
{"call":2,"request":{"body":"not json"},"end":{"kind":"error","error":"unexpected EOF"}}
{"call":1,"request":{"body":{"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"Shell","arguments":"{\"x\":1}"}}]},{"role":"tool","tool_call_id":"a","content":[1,2]}]}},"end":{"kind":"closed"}}
`), []byte(`{"messages":[{"role":"tool","tool_call_id":"zz"}]}`))
	f.Fuzz(func(t *testing.T, file, body []byte) {
		c, err := Read(bytes.NewReader(file))
		if err != nil {
			return
		}
		for i := 1; i < len(c.Exchanges); i++ {
			if c.Exchanges[i-1].Call > c.Exchanges[i].Call {
				t.Fatalf("exchanges out of order: %d before %d", c.Exchanges[i-1].Call, c.Exchanges[i].Call)
			}
		}
		for _, lenient := range []bool{false, true} {
			p := NewReplayer(c)
			p.Speed, p.Lenient, p.WorkDir = 0, lenient, "/w"
			for _, x := range c.Exchanges {
				if x.End.Kind == EndCancelled {
					return // replays as a wait for the client to give up
				}
			}
			req, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", strings.NewReader(string(body)))
			resp, err := p.RoundTrip(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	})
}
