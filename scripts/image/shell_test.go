package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// shellCommand is what the model asks the Shell tool to run inside the image: the basic
// tools an agent reaches for.
const shellCommand = `echo hello | sed s/hello/sed-ok/; printf '1\n2\n' | awk '{s+=$1} END {print "awk-" s}'; ` +
	`find /usr/local/bin -name kimi-run; ls / | grep -c etc; printf 'a\n' > /tmp/x && printf 'b\n' | diff /tmp/x - | grep -c '^'`

// model is an OpenAI-compatible endpoint that asks for one Shell call, then answers with
// the call's output, so the answer shows what the command printed.
func model(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
				"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			args, _ := json.Marshal(map[string]string{"command": shellCommand})
			chunk(map[string]any{"role": "assistant", "tool_calls": []map[string]any{{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]string{"name": "Shell", "arguments": string(args)}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
		} else {
			out, _ := json.Marshal(last.Content)
			chunk(map[string]any{"role": "assistant", "content": "TOOL OUTPUT: " + string(out)}, nil)
			chunk(map[string]any{}, "stop")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// inImage runs kimi-run inside an unpacked image's root file system as a container runtime
// would: its own mount and PID namespaces (a user namespace for the rights), /proc and
// /dev mounted, chroot into the root, the image's environment. The network is the host's,
// so the test's model server on 127.0.0.1 is reachable.
func inImage(t *testing.T, rootfs string, env []string, args ...string) (string, error) {
	t.Helper()
	unshare := need(t, "unshare")
	for _, d := range []string{"proc", "dev"} {
		if err := os.MkdirAll(filepath.Join(rootfs, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The host's tools set the stage; env -i leaves kimi-run the image's environment only.
	script := `mount --rbind /dev "$1/dev" && mount -t proc proc "$1/proc" && shift && exec env -i "$@"`
	argv := []string{"--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "sh", "-c", script, "sh", rootfs}
	argv = append(append(argv, env...), need(t, "chroot"), rootfs, "/usr/local/bin/kimi-run")
	cmd := exec.CommandContext(ctx, unshare, append(argv, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && strings.Contains(stderr.String(), "unshare failed") {
		if requireTools {
			t.Fatalf("no user namespaces here: %s", stderr.String())
		}
		t.Skipf("no user namespaces here: %s", stderr.String())
	}
	if err != nil {
		return string(out), fmt.Errorf("%w\n%s", err, stderr.String())
	}
	return string(out), nil
}

// TestShellRunsInTheAgentImage: in the agent image unpacked by umoci, the agent's Shell
// tool runs a pipeline of the basic tools (issue 29 #3: the only image had no /bin/sh);
// in the static image the same run has no shell to use.
func TestShellRunsInTheAgentImage(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("runs linux images")
	}
	umoci := need(t, "umoci")
	dir, _ := hostLayout(t)
	srv := model(t)
	for _, tag := range []string{"9.8.7", "9.8.7-static"} {
		t.Run(tag, func(t *testing.T) {
			bundle := filepath.Join(t.TempDir(), "bundle")
			command(t, umoci, "unpack", "--rootless", "--image", dir+":"+tag, bundle)
			var cfg struct {
				Process struct {
					Env []string `json:"env"`
				} `json:"process"`
			}
			b, err := os.ReadFile(filepath.Join(bundle, "config.json"))
			if err != nil || json.Unmarshal(b, &cfg) != nil || len(cfg.Process.Env) == 0 {
				t.Fatalf("umoci's runtime config: %v\n%s", err, b)
			}
			env := append(cfg.Process.Env, "KIMI_API_KEY=sk-test", "KIMI_RUN_NO_ROOT_WARNING=1")
			out, err := inImage(t, filepath.Join(bundle, "rootfs"), env,
				"--base-url", srv.URL+"/v1", "-m", "test-model", "--no-session", "-w", "/tmp", "--output-format", "stream-json",
				"-p", "check the tools")
			if err != nil {
				t.Fatalf("kimi-run in the image: %v\n%s", err, out)
			}
			var result struct {
				ExitCode  int    `json:"exit_code"`
				FinalText string `json:"final_text"`
			}
			var toolError *bool
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var ev struct {
					Type    string `json:"type"`
					IsError bool   `json:"is_error"`
				}
				json.Unmarshal(sc.Bytes(), &ev)
				switch ev.Type {
				case "tool_result":
					toolError = &ev.IsError
				case "result":
					json.Unmarshal(sc.Bytes(), &result)
				}
			}
			if toolError == nil {
				t.Fatalf("no tool_result event:\n%s", out)
			}
			if tag == "9.8.7-static" {
				if !*toolError {
					t.Errorf("the Shell call succeeded in the image without a shell:\n%s", out)
				}
				return
			}
			for _, want := range []string{"sed-ok", "awk-3", "/usr/local/bin/kimi-run", `1\n`, `3\n`} {
				if !strings.Contains(result.FinalText, want) {
					t.Errorf("the Shell output lacks %q:\n%s", want, result.FinalText)
				}
			}
			if *toolError || result.ExitCode != 0 {
				t.Errorf("tool error %v, exit %d:\n%s", *toolError, result.ExitCode, out)
			}
		})
	}
}
