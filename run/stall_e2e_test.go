package run_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/eventschema"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

func TestStalledStreamsAreRetried(t *testing.T) {
	tests := []struct {
		name  string
		first scripted.Response
	}{
		{name: "silent mid-stream", first: scripted.Reply(scripted.Say("I will"), scripted.Hang())},
		{name: "headers never come", first: scripted.Text("never seen").DelayHeaders(time.Minute)},
		{name: "keep-alives only", first: scripted.Reply(scripted.Say("I will"), scripted.KeepAlive(5), scripted.Pause(2*time.Second), scripted.KeepAlive(5), scripted.Hang())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.first, scripted.Text("second attempt"))
			r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--stream-idle-timeout", "300ms", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			res := lastResult(t, r)
			if res["final_text"] != "second attempt" {
				t.Errorf("final_text = %v", res["final_text"])
			}
			var retry map[string]any
			for _, e := range events(t, r.stdout) {
				if e["type"] == "retry" {
					retry = e
				}
			}
			if retry == nil {
				t.Fatalf("no retry event")
			}
		})
	}
}

// TestTextStreamsAsItArrives holds the model's stream open after the first delta until the
// test has read that delta from the binary's stdout: buffering the reply would deadlock
// (and fail after ten seconds) instead of passing.
func TestTextStreamsAsItArrives(t *testing.T) {
	seen := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(content, finish string) {
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%q},"finish_reason":%s}]}`+"\n\n", content, finish)
			w.(http.Flusher).Flush()
		}
		chunk("first words", "null")
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
		}
		chunk(" and the rest", `"stop"`)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	cmd := exec.Command(binary, "--no-session", "--output-format", "stream-json", "-w", t.TempDir(), "-p", "x")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KIMI_API_KEY=" + testKey,
		"KIMI_MODEL_NAME=m", "KIMI_BASE_URL=" + srv.URL + "/v1"}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var first time.Time
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		if err := eventschema.Validate(sc.Bytes()); err != nil {
			t.Errorf("%v\n%s", err, sc.Text())
		}
		if e["type"] == "text" && e["delta"] == "first words" && first.IsZero() {
			first = time.Now()
			close(seen)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run failed: %v", err)
	}
	if first.IsZero() {
		t.Fatal("the first delta never came out on its own")
	}
}
