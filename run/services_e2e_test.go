package run_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// moonshotFake is a local stand-in for Moonshot's search and fetch services. It answers
// the shapes Kimi CLI's tools/web code sends and reads, and keeps every request.
type moonshotFake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	bodies   []map[string]any
	// leak is put into every answer: a service that echoes a credential back.
	leak string
}

func newMoonshotFake(t *testing.T, leak string) *moonshotFake {
	f := &moonshotFake{leak: leak}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.requests, f.bodies = append(f.requests, r), append(f.bodies, body)
		f.mu.Unlock()
		switch r.URL.Path {
		case "/search":
			fmt.Fprintf(w, `{"search_results":[{"site_name":"Go","title":"Go 1.26 is released","url":"https://go.dev/blog/go1.26","snippet":"%s","date":"2026-02-10"}]}`, "released today "+f.leak)
		case "/fetch":
			fmt.Fprint(w, "# Go 1.26\n\nThe page as Markdown. "+f.leak)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *moonshotFake) got() ([]*http.Request, []map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests), slices.Clone(f.bodies)
}

// TestMoonshotServices: with [services.moonshot_search] the agent has SearchWeb, and with
// [services.moonshot_fetch] FetchURL goes through the fetch service, as in Kimi CLI; both
// sign in with the service's key, or with the `kimi login` its oauth names (the login
// `kimi login` writes for the model and both services). The services' credentials are
// secrets: one a service echoes back reaches neither the model, nor stdout, stderr, nor
// the session.
func TestMoonshotServices(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		config  func(model, search, fetch string) string
		env     map[string]string
		auth    string // the Authorization the services must get
		secrets []string
		login   bool
	}{
		{name: "keys", auth: "Bearer svc-key-5Xq9",
			config: func(model, search, fetch string) string {
				return fmt.Sprintf(`
[services.moonshot_search]
base_url = %q
api_key = "svc-key-5Xq9"
custom_headers = { X-Team = "ci" }

[services.moonshot_fetch]
base_url = %q
api_key = "svc-key-5Xq9"
`, search, fetch)
			},
			secrets: []string{"svc-key-5Xq9"}},
		{name: "kimi login", auth: "Bearer stored-access-token-1", login: true,
			env: map[string]string{"KIMI_API_KEY": "", "KIMI_MODEL_NAME": "", "KIMI_BASE_URL": ""},
			config: func(model, search, fetch string) string {
				return loginTOML(model, "") + fmt.Sprintf(`
[services.moonshot_search]
base_url = %q
api_key = ""
oauth = { storage = "file", key = "oauth/kimi-code" }

[services.moonshot_fetch]
base_url = %q
api_key = ""
oauth = { storage = "file", key = "oauth/kimi-code" }
`, search, fetch)
			},
			secrets: []string{"stored-access-token-1", "stored-refresh-token-1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := newMoonshotFake(t, tt.secrets[0])
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.Call("SearchWeb", `{"query":"go 1.26 release"}`)),
				scripted.ToolCalls(scripted.Call("FetchURL", `{"url":"https://go.dev/blog/go1.26"}`)),
				scripted.Text("Go 1.26 is out."),
			)
			home := kimiConfig(t, tt.config(srv.URL(), fake.URL+"/search", fake.URL+"/fetch"))
			if tt.login {
				storeLogin(t, home, "stored-access-token-1", "stored-refresh-token-1", time.Hour)
			}
			env := map[string]string{"HOME": home}
			for k, v := range tt.env {
				env[k] = v
			}
			r := kimi(t, srv, invocation{env: env, args: []string{"--output-format", "stream-json", "-p", "what is new in Go?"}})
			res := lastResult(t, r)
			if r.code != 0 || res["final_text"] != "Go 1.26 is out." {
				t.Fatalf("exit %d, result %v\n%s", r.code, res, r.stderr)
			}
			evs := events(t, r.stdout)
			if tools, _ := evs[0]["tools"].([]any); !slices.Contains(tools, any("SearchWeb")) {
				t.Errorf("init tools %v lack SearchWeb", tools)
			}
			callIDs := map[string]string{}
			for _, e := range evs {
				if e["type"] == "tool_call" {
					callIDs[e["name"].(string)] = e["id"].(string)
				}
			}

			reqs, bodies := fake.got()
			if len(reqs) != 2 || reqs[0].URL.Path != "/search" || reqs[1].URL.Path != "/fetch" {
				t.Fatalf("service requests %v", reqs)
			}
			for i, name := range []string{"SearchWeb", "FetchURL"} {
				h := reqs[i].Header
				if h.Get("Authorization") != tt.auth || !strings.HasPrefix(h.Get("User-Agent"), "kimi-run/") || h.Get("X-Msh-Tool-Call-Id") != callIDs[name] {
					t.Errorf("%s: service request headers %v; want %q, kimi-run's User-Agent and the call id %s", name, h, tt.auth, callIDs[name])
				}
				if tt.login && h.Get("X-Msh-Platform") != "kimi_cli" {
					t.Errorf("%s: a login's request lacks Kimi's platform header: %v", name, h)
				}
			}
			if tt.name == "keys" && reqs[0].Header.Get("X-Team") != "ci" {
				t.Errorf("custom header not sent: %v", reqs[0].Header)
			}
			if b := bodies[0]; b["text_query"] != "go 1.26 release" || b["limit"] != 5.0 || b["enable_page_crawling"] != false || b["timeout_seconds"] != 30.0 {
				t.Errorf("search body %v", b)
			}
			if b := bodies[1]; b["url"] != "https://go.dev/blog/go1.26" || reqs[1].Header.Get("Accept") != "text/markdown" {
				t.Errorf("fetch body %v, Accept %q", b, reqs[1].Header.Get("Accept"))
			}

			tools := srv.Requests()[2].MessagesOf("tool")
			if len(tools) != 2 || !strings.Contains(tools[0]["content"].(string), "Go 1.26 is released") ||
				!strings.HasPrefix(tools[1]["content"].(string), "# Go 1.26\n\nThe page as Markdown.") {
				t.Errorf("tool results sent back: %v", tools)
			}
			if !strings.Contains(tools[0]["content"].(string), "released today [redacted]") {
				t.Errorf("the credential the service echoed was not scrubbed: %v", tools[0]["content"])
			}
			session, _ := os.ReadFile(sessionFile(t, home, res["session_id"].(string)))
			for _, secret := range tt.secrets {
				for where, text := range map[string]string{"the model's requests": fmt.Sprint(srv.Requests()[2].Messages()), "stdout": r.stdout, "stderr": r.stderr, "the session": string(session)} {
					if strings.Contains(text, secret) {
						t.Errorf("%s holds the service credential %s", where, secret)
					}
				}
			}
		})
	}
}

// sessionFile is the context file of session id under home's state dir.
func sessionFile(t *testing.T, home, id string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(home, ".local", "state", "kimi-run", "sessions", "*", id, "context.jsonl"))
	if len(matches) != 1 {
		t.Fatalf("session %s: found %v", id, matches)
	}
	return matches[0]
}

// TestMoonshotServicesConfig: a service without a credential is left out with a warning
// (Kimi's SearchWeb would fail every call); one whose base_url is not a URL stops the run
// before any model call (exit 2); no [services] means no SearchWeb, as in Kimi CLI; a key in
// --config's text draws the warning every inline credential draws.
func TestMoonshotServicesConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, config string
		inline       bool
		code         int
		stderr       string
		search       bool
	}{
		{name: "no services", code: 0},
		{name: "no credential", config: "[services.moonshot_search]\nbase_url = \"http://127.0.0.1:1/search\"\napi_key = \"\"\n",
			code: 0, stderr: "services.moonshot_search has no api_key and no oauth login: SearchWeb is left out"},
		{name: "not a URL", config: "[services.moonshot_fetch]\nbase_url = \"fetch.example\"\napi_key = \"k\"\n",
			code: 2, stderr: `services.moonshot_fetch.base_url "fetch.example" is not an http(s) URL`},
		{name: "unknown service", config: "[services.bing]\nbase_url = \"http://127.0.0.1:1\"\n", code: 0, stderr: "services.bing is not a service"},
		{name: "inline key", inline: true, config: "[services.moonshot_search]\nbase_url = \"http://127.0.0.1:1/search\"\napi_key = \"svc-inline-key-3\"\n",
			code: 0, stderr: "--config holds a credential (services.moonshot_search.api_key)", search: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			args := []string{"--output-format", "stream-json", "-p", "hi"}
			env := map[string]string{}
			if tt.inline {
				args = append(args, "--config", tt.config)
			} else {
				env["HOME"] = kimiConfig(t, tt.config)
			}
			r := kimi(t, srv, invocation{env: env, args: args})
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "svc-inline-key-3") {
				t.Error("the inline key was printed")
			}
			if tt.code != 0 {
				if len(srv.Requests()) != 0 {
					t.Error("a model call was made")
				}
				return
			}
			tools, _ := events(t, r.stdout)[0]["tools"].([]any)
			if got := slices.Contains(tools, any("SearchWeb")); got != tt.search {
				t.Errorf("SearchWeb offered = %v, want %v (tools %v)", got, tt.search, tools)
			}
		})
	}
}
