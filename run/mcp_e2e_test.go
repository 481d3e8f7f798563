package run_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/internal/mcptest"
	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

var (
	mcpBinOnce sync.Once
	mcpBin     string
	mcpBinErr  error
)

// mcpServer returns the stdio MCP test server, built once next to the kimi-run binary (and
// removed with it).
func mcpServer(t testing.TB) string {
	t.Helper()
	mcpBinOnce.Do(func() {
		mcpBin = filepath.Join(filepath.Dir(binary), "mcp-test-server")
		if runtime.GOOS == "windows" {
			mcpBin += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", mcpBin,
			"../internal/mcptest/cmd/mcp-test-server").CombinedOutput()
		if err != nil {
			mcpBinErr = &buildError{out: string(out), err: err}
		}
	})
	if mcpBinErr != nil {
		t.Fatal(mcpBinErr)
	}
	return mcpBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string {
	return "building the MCP test server: " + e.err.Error() + "\n" + e.out
}

// stdioServer is an mcp.json entry that starts the test server with args.
func stdioServer(t testing.TB, name string, args ...string) map[string]any {
	return map[string]any{"command": mcpServer(t), "args": append([]string{"-name", name}, args...)}
}

// mcpConfigFile writes {"mcpServers": servers} to a file and returns its path.
func mcpConfigFile(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// offered returns the tools of a model request by name.
func offered(req scripted.Request) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := req.Body["tools"].([]any)
	for _, tool := range list {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		if name, ok := fn["name"].(string); ok {
			out[name] = fn
		}
	}
	return out
}

// toolResults returns the tool messages of a model request by call id.
func toolResults(req scripted.Request) map[string]string {
	out := map[string]string{}
	for _, m := range req.Messages() {
		if m["role"] == "tool" {
			id, _ := m["tool_call_id"].(string)
			content, _ := m["content"].(string)
			out[id] = content
		}
	}
	return out
}

// TestMCPToolsReachTheModel is the "done when": a Kimi-style mcp.json with a stdio
// server and an HTTP server; the model's calls to their tools come back as tool results.
func TestMCPToolsReachTheModel(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			web := httptest.NewServer(mcptest.Handler(mcptest.Options{Name: "web"}, "s3cret-t0ken"))
			defer web.Close()
			cfg := mcpConfigFile(t, map[string]any{
				"local": stdioServer(t, "local", "-stderr", "local server ready"),
				"web": map[string]any{"url": web.URL, "transport": "http",
					"headers": map[string]string{"Authorization": "Bearer ${WEB_TOKEN}"}},
			})
			srv := scripted.New(t,
				scripted.ToolCalls(
					scripted.CallID("c1", "local__echo", `{"text":"over stdio"}`),
					scripted.CallID("c2", "web__add", `{"a":2,"b":40}`),
					scripted.CallID("c3", "web__echo", `{"text":"over http"}`),
				),
				scripted.ToolCalls(
					scripted.CallID("c4", "local__fail", `{"reason":"bad input"}`),
					scripted.CallID("c5", "local__getenv", `{"name":"KIMI_API_KEY"}`),
					scripted.CallID("c6", "web__picture", `{}`),
				),
				scripted.Text("Both servers answered."),
			)
			r := kimi(t, srv, invocation{
				args: []string{"--output-format", format, "--mcp-config-file", cfg, "-p", "use the MCP tools"},
				env:  map[string]string{"WEB_TOKEN": "s3cret-t0ken"},
			})
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests", len(reqs))
			}
			tools := offered(reqs[0])
			for _, name := range []string{"Shell", "ReadFile", "local__echo", "local__add", "web__echo", "web__add", "web__slow"} {
				if tools[name] == nil {
					t.Errorf("tool %s not offered; offered: %v", name, keys(tools))
				}
			}
			echo := tools["web__echo"]
			if d, _ := echo["description"].(string); !strings.HasPrefix(d, `MCP tool "echo" from the MCP server "web".`) {
				t.Errorf("description = %q", d)
			}
			if props, _ := echo["parameters"].(map[string]any)["properties"].(map[string]any); props["text"] == nil {
				t.Errorf("schema = %v", echo["parameters"])
			}
			got := toolResults(reqs[1])
			if got["c1"] != "local says: over stdio" || got["c2"] != `{"sum":42}` || got["c3"] != "web says: over http" {
				t.Errorf("results = %q", got)
			}
			got = toolResults(reqs[2])
			if !strings.Contains(got["c4"], "failed on purpose: bad input") {
				t.Errorf("error result = %q", got["c4"])
			}
			if got["c5"] != "KIMI_API_KEY=<unset>" {
				t.Errorf("the server saw the API key: %q", got["c5"])
			}
			if !strings.Contains(got["c6"], "[image: image/png,") {
				t.Errorf("image result = %q", got["c6"])
			}
			if strings.Contains(r.stdout, "local server ready") {
				t.Errorf("server stderr reached stdout:\n%s", r.stdout)
			}
			if format == "text" {
				if r.stdout != "Both servers answered.\n" {
					t.Errorf("stdout = %q", r.stdout)
				}
				if !strings.Contains(r.stderr, "[mcp local] local server ready") {
					t.Errorf("server stderr not on stderr with its name:\n%s", r.stderr)
				}
				return
			}
			evs := events(t, r.stdout)
			servers, _ := evs[0]["mcp_servers"].([]any)
			if len(servers) != 2 {
				t.Fatalf("init mcp_servers = %v", evs[0]["mcp_servers"])
			}
			for _, s := range servers {
				s := s.(map[string]any)
				if s["status"] != "connected" || len(s["tools"].([]any)) < 6 {
					t.Errorf("init server = %v", s)
				}
			}
			if init := evs[0]["tools"].([]any); !slices.Contains(init, "local__echo") {
				t.Errorf("init tools = %v", init)
			}
			for _, e := range testkit.OfType(evs, "tool_result") {
				if isErr := e["is_error"] == true; isErr != (e["id"] == "c4") {
					t.Errorf("tool_result %v: is_error = %v", e["id"], e["is_error"])
				}
			}
			if w := testkit.OfType(evs, "warning"); len(w) != 0 {
				t.Errorf("warnings: %v", w)
			}
			lastResult(t, r)
		})
	}
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestMCPToolNames: tools keep their own names; one that clashes with a built-in is renamed,
// the built-in keeps its name; --mcp-config texts with commas are read whole; --quiet keeps
// server stderr off stderr too.
func TestMCPToolNames(t *testing.T) {
	t.Parallel()
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"gh": stdioServer(t, "gh", "-extra", "Shell,search", "-stderr", "chatty server")}})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "gh__Shell", `{"text":"renamed"}`), scripted.CallID("c2", "search", `{"text":"own name"}`),
			scripted.CallID("c3", "Shell", `{"command":"echo built-in"}`)),
		scripted.Text("ok"),
	)
	r := kimi(t, srv, invocation{args: []string{"--quiet", "--mcp-config", string(conf), "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("--quiet, yet stderr has:\n%s", r.stderr)
	}
	got := toolResults(srv.Requests()[1])
	if got["c1"] != "gh says: renamed" || got["c2"] != "gh says: own name" || !strings.Contains(got["c3"], "built-in") {
		t.Errorf("results = %q", got)
	}
	tools := offered(srv.Requests()[0])
	if tools["echo"] == nil || tools["gh__echo"] != nil {
		t.Errorf("a tool without a clash was renamed: %v", keys(tools))
	}
}

// TestMCPFailuresDoNotStopTheRun: a server that never answers initialize, a broken command and
// a server that exits at once are warnings; the good server's tools still work. --mcp-strict
// makes the same configuration a usage error before any model call.
func TestMCPFailuresDoNotStopTheRun(t *testing.T) {
	t.Parallel()
	servers := func(t *testing.T) string {
		return mcpConfigFile(t, map[string]any{
			"good":   stdioServer(t, "good"),
			"hangs":  stdioServer(t, "hangs", "-hang"),
			"broken": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")},
			"exits":  stdioServer(t, "exits", "-fail", "cannot reach the database"),
		})
	}
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("c1", "echo", `{"text":"hi"}`)), scripted.Text("done"))
			// 3 s: the good servers must start within it under -race on a loaded machine, each
			// through the gate (this race-built test binary), and the hanging one uses it all.
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--mcp-config-file", servers(t),
				"--mcp-startup-timeout", "3s", "-p", "x"}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if got := toolResults(srv.Requests()[1])["c1"]; got != "good says: hi" {
				t.Errorf("good server's result = %q", got)
			}
			wantIn := map[string]string{"hangs": "within 3s", "broken": "no-such-server", "exits": "cannot reach the database"}
			if format == "text" {
				for name, want := range wantIn {
					if !strings.Contains(r.stderr, `MCP server "`+name+`" is not available`) || !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks the warning for %s (%q):\n%s", name, want, r.stderr)
					}
				}
				return
			}
			evs := events(t, r.stdout)
			var warnings []string
			for _, w := range testkit.OfType(evs, "warning") {
				warnings = append(warnings, w["message"].(string))
			}
			for name, want := range wantIn {
				found := false
				for _, w := range warnings {
					found = found || (strings.Contains(w, `"`+name+`"`) && strings.Contains(w, want))
				}
				if !found {
					t.Errorf("no warning for %s mentioning %q in %q", name, want, warnings)
				}
			}
			status := map[string]string{}
			for _, s := range evs[0]["mcp_servers"].([]any) {
				s := s.(map[string]any)
				status[s["name"].(string)] = s["status"].(string)
				if s["status"] == "failed" && s["error"] == "" {
					t.Errorf("failed server without error: %v", s)
				}
			}
			if status["good"] != "connected" || status["hangs"] != "failed" || status["broken"] != "failed" || status["exits"] != "failed" {
				t.Errorf("statuses = %v", status)
			}
			lastResult(t, r)
		})
		t.Run(format+"/strict", func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "--mcp-config-file", servers(t),
				"--mcp-startup-timeout", "1s", "--mcp-strict", "-p", "x"}})
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model requests", n)
			}
			if !strings.Contains(r.stderr, "--mcp-strict") {
				t.Errorf("stderr:\n%s", r.stderr)
			}
			if format == "stream-json" {
				if res := lastResult(t, r); res["error"].(map[string]any)["kind"] != "usage" {
					t.Errorf("result = %v", res)
				}
			}
		})
	}
}

// TestMCPCallTimeoutAndCrash: a slow tool hits the call timeout (from config.toml), a server
// that crashes mid-run turns into error results and a warning, and the run goes on.
func TestMCPCallTimeoutAndCrash(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			os.MkdirAll(filepath.Join(home, ".kimi"), 0o755)
			// The timeout bounds every call, the crash's too: 3 s leaves a loaded machine (-race,
			// parallel tests) time to deliver the crash before it, where 400 ms once did not.
			os.WriteFile(filepath.Join(home, ".kimi", "config.toml"), []byte("[mcp.client]\ntool_call_timeout_ms = 3000\n"), 0o644)
			data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
				"flaky": stdioServer(t, "flaky"), "steady": stdioServer(t, "steady")}})
			os.WriteFile(filepath.Join(home, ".kimi", "mcp.json"), data, 0o644) // read by default, as Kimi does
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("c1", "flaky__slow", `{"ms":60000}`)),
				scripted.ToolCalls(scripted.CallID("c2", "flaky__crash", `{}`)),
				scripted.ToolCalls(scripted.CallID("c3", "flaky__echo", `{"text":"anyone?"}`), scripted.CallID("c4", "steady__echo", `{"text":"still here"}`)),
				scripted.Text("carried on"),
			)
			r := kimi(t, srv, invocation{args: []string{"--output-format", format, "-p", "x"}, env: map[string]string{"HOME": home}})
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if got := toolResults(reqs[1])["c1"]; !strings.Contains(got, "did not answer") || !strings.Contains(got, "3s") {
				t.Errorf("slow result = %q", got)
			}
			if got := toolResults(reqs[2])["c2"]; !strings.Contains(got, "exit status 3") {
				t.Errorf("crash result = %q", got)
			}
			got := toolResults(reqs[3])
			if !strings.Contains(got["c3"], "no longer running") || got["c4"] != "steady says: still here" {
				t.Errorf("results after the crash = %q", got)
			}
			want := `MCP server "flaky" stopped`
			if format == "text" {
				if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "crashing on purpose") {
					t.Errorf("stderr:\n%s", r.stderr)
				}
				return
			}
			found := false
			for _, w := range testkit.OfType(events(t, r.stdout), "warning") {
				found = found || strings.Contains(w["message"].(string), want)
			}
			if !found {
				t.Errorf("no warning about the crash:\n%s", r.stdout)
			}
			lastResult(t, r)
		})
	}
}

// TestMCPSubagentsShareTheServers: an Agent (Task) subagent calls MCP tools over the parent's session;
// the server is started once.
func TestMCPSubagentsShareTheServers(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	cfg := mcpConfigFile(t, map[string]any{"s": stdioServer(t, "s", "-pidfile", pids)})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("task", "Agent", `{"description":"ask the server","prompt":"Call echo.","subagent_type":"coder"}`)),
		scripted.ToolCalls(scripted.CallID("sub", "echo", `{"text":"from the subagent"}`)),
		scripted.Text("The server said hello."),
		scripted.ToolCalls(scripted.CallID("parent", "echo", `{"text":"from the parent"}`)),
		scripted.Text("done"),
	)
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--mcp-config-file", cfg, "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("the server got %d requests, want 5\n%s", len(reqs), r.stdout)
	}
	if offered(reqs[1])["echo"] == nil {
		t.Errorf("the subagent was not offered the MCP tools")
	}
	if got := toolResults(reqs[2])["sub"]; got != "s says: from the subagent" {
		t.Errorf("subagent result = %q", got)
	}
	if got := toolResults(reqs[4])["parent"]; got != "s says: from the parent" {
		t.Errorf("parent result = %q", got)
	}
	b, _ := os.ReadFile(pids)
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("the server was started %d times", n)
	}
}

// TestMCPConfigErrors: a config that does not parse is exit 2 naming the file; --no-mcp skips
// even a broken default file; KIMI_SHARE_DIR moves the default file as it moves config.toml.
func TestMCPConfigErrors(t *testing.T) {
	t.Parallel()
	broken := filepath.Join(t.TempDir(), "broken.json")
	os.WriteFile(broken, []byte(`{"mcpServers": {"x": {"command": "a",}}}`), 0o644)
	share := t.TempDir()
	os.WriteFile(filepath.Join(share, "mcp.json"), []byte(`{"mcpServers": [1, 2]}`), 0o644)
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr string
	}{
		{name: "file does not parse", args: []string{"--mcp-config-file", broken}, code: 2, stderr: broken},
		{name: "missing file", args: []string{"--mcp-config-file", "/nonexistent/mcp.json"}, code: 2, stderr: "/nonexistent/mcp.json"},
		{name: "inline text", args: []string{"--mcp-config", `{"mcpServers": {"x": {}}}`}, code: 2, stderr: `--mcp-config #1: server "x": needs "command"`},
		{name: "both command and url", args: []string{"--mcp-config", `{"mcpServers": {"x": {"command": "a", "url": "http://h/mcp"}}}`}, code: 2, stderr: "not both"},
		{name: "unknown transport", args: []string{"--mcp-config", `{"mcpServers": {"x": {"url": "http://h/mcp", "transport": "ws"}}}`}, code: 2, stderr: `unknown transport "ws"`},
		{name: "default file under KIMI_SHARE_DIR", env: map[string]string{"KIMI_SHARE_DIR": share}, code: 2, stderr: filepath.Join(share, "mcp.json")},
		{name: "--no-mcp skips it", args: []string{"--no-mcp"}, env: map[string]string{"KIMI_SHARE_DIR": share}, code: 0},
		{name: "a file given replaces the default", args: []string{"--mcp-config", `{"mcpServers": {}}`, "--mcp-config-file", mcpConfigFile(t, map[string]any{})},
			env: map[string]string{"KIMI_SHARE_DIR": share}, code: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := scripted.New(t, scripted.Text("ok"))
			r := kimi(t, srv, invocation{args: append(tt.args, "-p", "x"), env: tt.env})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, r.stderr)
			}
			if tt.code == 2 && len(srv.Requests()) != 0 {
				t.Errorf("a model call was made")
			}
		})
	}
}

// TestMCPStdoutBanner: a stdio server that prints a banner on stdout before its handshake
// serves its tools; a warning names the skipped line, once.
func TestMCPStdoutBanner(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	cfg := mcpConfigFile(t, map[string]any{"runner": stdioServer(t, "runner", "-stdout", "Code Runner MCP Server running on stdio")})
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--mcp-config-file", cfg, "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	if servers, _ := evs[0]["mcp_servers"].([]any); len(servers) != 1 || servers[0].(map[string]any)["status"] != "connected" {
		t.Errorf("init mcp_servers = %v", evs[0]["mcp_servers"])
	}
	warned := 0
	for _, w := range testkit.OfType(evs, "warning") {
		if m, _ := w["message"].(string); strings.Contains(m, `"Code Runner MCP Server running on stdio"`) {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings name the skipped line:\n%s", warned, r.stdout)
	}
}
