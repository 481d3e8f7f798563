package run_test

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// secondKey is a second provider's key in the config file: unused, scrubbed all the same.
const secondKey = "sk-second-pr0vider-k3y-4242"

// secondProvider is the config text that adds it.
const secondProvider = `
[providers.q]
type = "openai_legacy"
base_url = "http://127.0.0.1:9/v1"
api_key = "` + secondKey + `"
`

// sessionFilesHolding lists the files below dir that hold one of needles.
func sessionFilesHolding(t *testing.T, dir string, needles ...string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, n := range needles {
			if strings.Contains(string(b), n) {
				out = append(out, path+" holds "+n)
			}
		}
		return nil
	})
	return out
}

// A background task's output.log lives in the session's folder, which CI jobs upload: a
// task that prints the config file leaves no key in it.
func TestTaskOutputLogIsScrubbed(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if len(req.MessagesOf("tool")) == 0 {
			return scripted.ToolCalls(scripted.Call("Shell", callArgs(t, map[string]any{
				"command": `cat "$HOME/.kimi/config.toml"`, "run_in_background": true, "description": "read the config"})))
		}
		return scripted.Text("done")
	})
	home := secretsHome(t, srv, secondProvider)
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home, "KIMI_BASE_URL": ""},
		args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "go")})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(sessions, "s1", "tasks", "*", "output.log"))
	if len(logs) != 1 {
		t.Fatalf("output logs: %v", logs)
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), `api_key = "[redacted]"`) {
		t.Fatalf("the task's output.log is not what the test expects:\n%s", b)
	}
	for _, leak := range sessionFilesHolding(t, sessions, fileKey, secondKey, testKey) {
		t.Error(leak)
	}
}

// A command that prints a key encoded (base64 at each offset and wrapped into lines, hex,
// reversed) reaches
// neither the model, the events, stderr nor the session's files in that form either.
func TestEncodedKeyIsScrubbed(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	const read = `k=$(sed -n 's/^api_key = "\(.*\)"$/\1/p' "$HOME/.kimi/config.toml" | head -n 1); `
	cmd := read + `for p in "" x xy; do printf '%s%s' "$p" "$k" | base64 | tr -d '\n'; echo; done; ` +
		`printf %s "$k" | od -An -tx1 | tr -d ' \n'; echo; ` +
		`printf %s "$k" | awk '{for(i=length($0);i>0;i--) printf "%s", substr($0,i,1); print ""}'; ` +
		// base64's own lines of 76 characters, one break inside the key's encoding.
		`printf '%040d%s\n' 0 "$k" | base64`
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", callArgs(t, map[string]any{"command": cmd}))),
		scripted.Text("done"))
	home := secretsHome(t, srv, "")
	r := kimi(t, srv, invocation{env: map[string]string{"HOME": home, "KIMI_BASE_URL": ""},
		args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "go")})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	out := lastToolOutput(t, srv, 1)
	if strings.Count(out, "[redacted]") < 6 {
		t.Fatalf("the command's output is not what the test expects:\n%s", out)
	}
	// A stretch from the middle of each encoding: what remains of the key once its edges
	// (shared with the bytes around it) are cut off.
	var encoded []string
	for _, p := range []string{"", "x", "xy"} {
		e := base64.StdEncoding.EncodeToString([]byte(p + fileKey))
		encoded = append(encoded, e[4:len(e)-4])
	}
	b := []byte(fileKey)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	encoded = append(encoded, hex.EncodeToString([]byte(fileKey)), string(b))
	raw := string(srv.Requests()[1].Raw)
	for _, e := range encoded {
		for where, text := range map[string]string{"the model's request": raw, "stdout": r.stdout, "stderr": r.stderr} {
			if strings.Contains(text, e) {
				t.Errorf("%s holds %q", where, e)
			}
		}
	}
	for _, leak := range sessionFilesHolding(t, sessions, encoded...) {
		t.Error(leak)
	}
}

// A prompt that holds a key (a person pasted it) leaves it in none of the session's files:
// its meta file (kimi-run.json), which keeps the prompt's first line, included.
func TestPromptKeyStaysOutOfTheSession(t *testing.T) {
	t.Parallel()
	sessions := t.TempDir()
	srv := scripted.New(t, scripted.Text("done"))
	r := kimi(t, srv, invocation{args: sessionArgs(sessions, "-S", "s1", "-p", "deploy with the key "+testKey+" please")})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if m := readOr(filepath.Join(sessions, "s1", "kimi-run.json"), ""); !strings.Contains(m, "deploy with the key [redacted]") {
		t.Fatalf("kimi-run.json is not what the test expects: %s", m)
	}
	for _, leak := range sessionFilesHolding(t, sessions, testKey) {
		t.Error(leak)
	}
}
