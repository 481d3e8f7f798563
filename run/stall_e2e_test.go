package run_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/eventschema"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestStalledStreamsAreRetried: each first attempt stalls for good (a silent stream,
// headers that never come, a stream that sends keep-alives and nothing else), so the idle
// timeout must be what ends it, however slow the machine. The timeout also bounds the wait
// for the good attempt's headers and chunks, so it is generous: a loaded machine, with the
// tests running beside this one, must not trip it there. --timeout only guards against a
// stall that is never detected. The exact timing is agent's TestStreamIdleTimeoutOnTheFakeClock.
func TestStalledStreamsAreRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		first scripted.Response
	}{
		{name: "silent mid-stream", first: scripted.Reply(scripted.Say("I will"), scripted.Hang())},
		{name: "headers never come", first: scripted.Text("never seen").DelayHeaders(time.Hour)},
		{name: "keep-alives only", first: scripted.Reply(scripted.Say("I will"), scripted.KeepAliveEvery(50*time.Millisecond))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, tt.first, scripted.Text("second attempt"))
			r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--stream-idle-timeout", "5s",
				"--timeout", "2m", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			res := lastResult(t, r)
			if res["final_text"] != "second attempt" {
				t.Errorf("final_text = %v", res["final_text"])
			}
			retry := testkit.Last(events(t, r.stdout), "retry")
			if retry == nil {
				t.Fatalf("no retry event")
			}
			// The retry must come from the stall being noticed, not from some other failure.
			if msg, _ := retry["error"].(string); !strings.Contains(msg, "after 5s") && !strings.Contains(msg, "timeout") {
				t.Errorf("retry error = %q, want the idle timeout or the header timeout", msg)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
}

// TestTextStreamsAsItArrives holds the model's stream open after the first delta until the
// test has read that delta from the binary's stdout: buffering the reply would deadlock
// (and fail after ten seconds) instead of passing.
func TestTextStreamsAsItArrives(t *testing.T) {
	t.Parallel()
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
	cmd.Env = append(cmd.Env, coverEnv()...)
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
