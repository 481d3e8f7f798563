package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// googleHome is a HOME whose config's default model is served by a provider of type typ
// at url, with the provider's extra keys (api_key, env, custom_headers).
func googleHome(t *testing.T, typ, url, provider string) string {
	t.Helper()
	return kimiConfig(t, fmt.Sprintf(`default_model = "m"
[models.m]
provider = "g"
model = "gemini-2.5-flash"
[providers.g]
type = %q
base_url = %q
%s
`, typ, url, provider))
}

// A key from GEMINI_API_KEY or GOOGLE_API_KEY goes to the provider in x-goog-api-key and
// nowhere else: not to the commands the model runs (it asks for their environment), not
// to stdout, stderr or the session file.
func TestGeminiKeyFromTheEnvironment(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const key = "AIzaSy-e2e-gemini-k3y-0123456789"
			srv := scripted.New(t, scripted.ToolCalls(scripted.Call("Shell", `{"command":"env; echo MARK`+name+`=$`+name+`"}`)), scripted.Text("Done."))
			sessions := t.TempDir()
			env := map[string]string{"HOME": googleHome(t, "gemini", srv.URL(), ""), name: key, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}
			r := kimi(t, nil, invocation{env: env, args: sessionArgs(sessions, "--output-format", "stream-json", "-p", "print your environment")})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if reqs[0].Header.Get("x-goog-api-key") != key {
				t.Errorf("x-goog-api-key = %q", reqs[0].Header.Get("x-goog-api-key"))
			}
			var sent string
			for _, m := range reqs[1].Messages() {
				if m["role"] == "tool" {
					sent, _ = m["content"].(string)
				}
			}
			if !strings.Contains(sent+"\n", "MARK"+name+"=\n") || strings.Contains(sent, name+"=A") {
				t.Errorf("the command's output did not show the variable withheld:\n%s", sent)
			}
			files, _ := filepath.Glob(filepath.Join(sessions, "*", "*.jsonl"))
			if len(files) == 0 {
				t.Fatalf("no session file under %s", sessions)
			}
			for _, f := range append(files, "stdout", "stderr") {
				var text string
				switch f {
				case "stdout":
					text = r.stdout
				case "stderr":
					text = r.stderr
				default:
					b, _ := os.ReadFile(f)
					text = string(b)
				}
				if strings.Contains(text, key) || strings.Contains(sent, key) {
					t.Errorf("%s holds the key", f)
				}
			}
		})
	}
}

// Vertex AI for a project: the provider's env table gives the project and location, the
// Authorization custom header the credentials; the request addresses the project's model
// and carries the header (no key), and the token is scrubbed like a key. Without a key or
// that header the config is refused before any request.
func TestVertexAIProject(t *testing.T) {
	t.Parallel()
	const token = "ya29.e2e-vertex-t0ken-0123456789"
	srv := scripted.New(t, scripted.Text("ok"))
	home := googleHome(t, "vertexai", srv.URL(), `env = { GOOGLE_CLOUD_PROJECT = "proj-1", GOOGLE_CLOUD_LOCATION = "us-east5" }
custom_headers = { Authorization = "Bearer `+token+`" }`)
	r := kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""}, args: []string{"-p", "hi"}})
	if r.code != 0 || r.stdout != "ok\n" {
		t.Fatalf("exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if !strings.HasSuffix(req.Path, "/projects/proj-1/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent") ||
		req.Header.Get("Authorization") != "Bearer "+token || req.Header.Get("x-goog-api-key") != "" {
		t.Errorf("request %s, headers %v", req.Path, req.Header)
	}
	if strings.Contains(r.stderr, token) {
		t.Errorf("stderr holds the token")
	}

	home = googleHome(t, "vertexai", "https://aiplatform.googleapis.com", `env = { GOOGLE_CLOUD_PROJECT = "proj-1" }`)
	r = kimi(t, nil, invocation{env: map[string]string{"HOME": home, "KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": "", "GOOGLE_API_KEY": ""}, args: []string{"-p", "hi"}})
	if r.code != 2 || !strings.Contains(r.stderr, "Application Default Credentials") {
		t.Errorf("no credentials: exit %d\n%s", r.code, r.stderr)
	}
}
