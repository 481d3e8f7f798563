package run_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// A tool's knob (tools.Settings) reaches the tool from each of its sources, flag > variable
// > config key > default, and the tool's description quotes the value the run uses.
func TestToolSettingsReachTheTools(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, []byte("[tools]\nshell_output_bytes = 2000\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"default", nil, nil, "40000"},
		{"config key", []string{"--config-file", cfg}, nil, "2000"},
		{"variable beats the file", []string{"--config-file", cfg}, map[string]string{"KIMI_RUN_SHELL_OUTPUT_BYTES": "1000"}, "1000"},
		{"flag beats all", []string{"--config-file", cfg, "--shell-output-bytes", "3000"}, map[string]string{"KIMI_RUN_SHELL_OUTPUT_BYTES": "1000"}, "3000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"seq 1 100000"}`)), scripted.Text("done"))
			r := kimi(t, srv, invocation{args: append(tt.args, "-p", "count"), env: tt.env})
			if r.code != 0 || strings.Contains(r.stderr, "is not a key") {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if desc := shellDescription(t, srv); !strings.Contains(desc, "Long output is cut to "+tt.want+" bytes") {
				t.Errorf("Shell's description does not quote %s:\n%s", tt.want, desc)
			}
			msgs := contents(srv, 1)
			got := msgs[len(msgs)-1] // the Shell call's result
			if !strings.HasPrefix(got, "tool: ") || !strings.Contains(got, "bytes of output omitted") || !strings.HasSuffix(got, "\n100000") {
				t.Errorf("the model read no cut output with its end:\n%.300s", got)
			}
			if n, want := len(got), atoi(t, tt.want); n < want || n > want+300 {
				t.Errorf("the model read %d bytes of output, want about %s", n, tt.want)
			}
		})
	}
	r := kimi(t, nil, invocation{args: []string{"--shell-output-bytes", "10", "-p", "count"}})
	if r.code != 2 || !strings.Contains(r.stderr, "--shell-output-bytes must be 1000 to 40000, got 10") {
		t.Errorf("out of range: exit %d\n%s", r.code, r.stderr)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// shellDescription is the description of the Shell tool in the first request.
func shellDescription(t *testing.T, srv *scripted.Server) string {
	t.Helper()
	tools, _ := srv.Requests()[0].Body["tools"].([]any)
	for _, tool := range tools {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "Shell" {
			desc, _ := fn["description"].(string)
			return desc
		}
	}
	t.Fatal("no Shell tool in the first request")
	return ""
}
