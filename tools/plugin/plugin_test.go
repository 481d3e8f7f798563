package plugin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/tools"
)

// writePlugin makes dir/NAME with a plugin.json and files (relative paths, mode 0755).
func writePlugin(t *testing.T, dir, name, pluginJSON string, files map[string]string) string {
	t.Helper()
	pdir := filepath.Join(dir, name)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if pluginJSON != "" {
		if err := os.WriteFile(filepath.Join(pdir, FileName), []byte(pluginJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, text := range files {
		p := filepath.Join(pdir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return pdir
}

// oneTool is a plugin.json with one tool running command.
func oneTool(command ...string) string {
	cmd, _ := json.Marshal(command)
	return `{"name":"test-plugin","version":"1.0.0","tools":[{"name":"test_tool","description":"A test tool","command":` + string(cmd) +
		`,"parameters":{"type":"object","properties":{"msg":{"type":"string"}}}}]}`
}

// load finds the plugins of dir and builds their tools (started from this process).
func load(t *testing.T, dir string, host Host) ([]tools.Tool, []string) {
	t.Helper()
	specs, warnings := Find(context.Background(), dir)
	ts, more := Tools(specs, nil, host, []string{"Shell", "ReadFile"})
	return ts, append(warnings, more...)
}

func call(t *testing.T, tool tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tool.Run(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: Go error %v", tool.Name(), err)
	}
	return res
}

// TestPluginToolKimiCases re-expresses Kimi CLI's plugin tool tests
// (tests/core/test_plugin_tool.py, v1.49) with sh scripts in place of Python ones: the
// arguments arrive as JSON on stdin and stdout is the result; a non-zero exit is an error
// result with what the tool wrote on stderr; a tool that ignores its arguments still runs.
// Kimi's injected credentials are the exception: only base_url is given (see Tools).
func TestPluginToolKimiCases(t *testing.T) {
	sh := testkit.NeedShell(t, "sh")
	dir := t.TempDir()
	writePlugin(t, dir, "greet", oneTool(sh, "scripts/tool.sh"), map[string]string{
		"scripts/tool.sh": "in=$(cat)\nmsg=$(printf '%s' \"$in\" | sed -n 's/.*\"msg\":\"\\([^\"]*\\)\".*/\\1/p')\necho \"hello ${msg:-world} from $(basename \"$PWD\")\"\n",
	})
	writePlugin(t, dir, "broken", strings.Replace(oneTool(sh, "scripts/tool.sh"), "test_tool", "broken_tool", 1), map[string]string{
		"scripts/tool.sh": "echo 'something went wrong' >&2\nexit 1\n",
	})
	writePlugin(t, dir, "deaf", strings.Replace(oneTool(sh, "-c", "echo mode=default"), "test_tool", "deaf_tool", 1), nil)
	writePlugin(t, dir, "inject", `{"name":"inject","version":"1","config_file":"config.json","inject":{"myApiKey":"api_key","myUrl":"base_url"},
		"tools":[{"name":"env_tool","description":"shows its environment","command":["`+sh+`","-c","echo key=$myApiKey url=$myUrl"]}]}`, nil)
	ts, warnings := load(t, dir, Host{BaseURL: "https://test.api/v1"})
	byName := map[string]tools.Tool{}
	for _, tool := range ts {
		byName[tool.Name()] = tool
	}
	if len(byName) != 4 {
		t.Fatalf("tools %v, warnings %q", ts, warnings)
	}

	if res := call(t, byName["test_tool"], `{"msg": "agent"}`); res.IsError || res.Output != "hello agent from greet" {
		t.Errorf("test_tool: %+v (want stdout, run in the plugin's directory)", res)
	}
	res := call(t, byName["broken_tool"], `{}`)
	if !res.IsError || !strings.Contains(res.Output, "failed (exit status 1):\nsomething went wrong") ||
		res.Kimi == nil || res.Kimi.Message != "Plugin tool 'broken_tool' failed: something went wrong" {
		t.Errorf("broken_tool: %+v %+v", res, res.Kimi)
	}
	if res := call(t, byName["deaf_tool"], ``); res.IsError || res.Output != "mode=default" {
		t.Errorf("deaf_tool: %+v", res)
	}
	if res := call(t, byName["env_tool"], `{}`); res.Output != "key= url=https://test.api/v1" {
		t.Errorf("env_tool: %q, want the base URL and no key", res.Output)
	}
	if !slices.ContainsFunc(warnings, func(w string) bool {
		return strings.Contains(w, "plugin inject asks for the run's credentials (inject: myApiKey)")
	}) {
		t.Errorf("warnings %q lack the inject warning", warnings)
	}
}

// TestFindKimiCases re-expresses Kimi CLI's plugin.json checks (tests/core/test_plugin.py,
// test_plugin_tool.py): a minimal plugin, unknown fields ignored, a missing name or version,
// inject without config_file and malformed JSON leave the plugin out (with a warning here,
// Kimi skips it silently), no plugins directory means no tools, a plugin without tools
// offers none. Tools kimi-run cannot offer are left out one by one.
func TestFindKimiCases(t *testing.T) {
	if ts, ws := load(t, filepath.Join(t.TempDir(), "nonexistent"), Host{}); len(ts)+len(ws) != 0 {
		t.Errorf("no plugins dir: %v %q", ts, ws)
	}
	dir := t.TempDir()
	writePlugin(t, dir, "a-minimal", `{"name":"minimal","version":"0.1.0","homepage":"ignored","tools":[{"name":"my_tool","description":"does things","command":["echo","hi"]}]}`, nil)
	writePlugin(t, dir, "b-no-tools", `{"name":"no-tools","version":"1.0.0"}`, nil)
	writePlugin(t, dir, "c-no-name", `{"version":"1.0.0"}`, nil)
	writePlugin(t, dir, "d-no-version", `{"name":"x"}`, nil)
	writePlugin(t, dir, "e-inject", `{"name":"x","version":"1","inject":{"k":"api_key"}}`, nil)
	writePlugin(t, dir, "f-malformed", `{"name":`, nil)
	writePlugin(t, dir, "g-not-a-plugin", "", map[string]string{"README": "no plugin.json"})
	writePlugin(t, dir, "h-bad-tools", `{"name":"bad","version":"1","tools":[
		{"name":"has space","description":"d","command":["echo"]},
		{"name":"nodesc","command":["echo"]},
		{"name":"nocmd","description":"d","command":[]},
		{"name":"Shell","description":"d","command":["echo"]},
		{"name":"my_tool","description":"again","command":["echo"]},
		{"name":"badschema","description":"d","command":["echo"],"parameters":[1]}]}`, nil)
	ts, warnings := load(t, dir, Host{})
	if len(ts) != 1 || ts[0].Name() != "my_tool" || ts[0].Description() != "does things" || string(ts[0].Schema()) != `{"type":"object","properties":{}}` {
		t.Errorf("tools %v", ts)
	}
	for _, want := range []string{"c-no-name/plugin.json has no name", "d-no-version/plugin.json has no version", "e-inject/plugin.json has inject without config_file",
		"f-malformed is left out", `tool 1 ("has space") is left out: its name must be`, `tool 2 ("nodesc") is left out: it has no description`,
		`tool 3 ("nocmd") is left out: it has no command`, `tool 6 ("badschema") is left out: its parameters`,
		"plugin bad: tool Shell is left out: another tool has that name", "plugin bad: tool my_tool is left out"} {
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in %q", want, warnings)
		}
	}
	if len(warnings) != 10 {
		t.Errorf("%d warnings: %q", len(warnings), warnings)
	}
}

// A tool that outlasts its time is stopped with what it started, and says so; one that
// floods stdout keeps the first MiB and the run's memory.
func TestPluginToolBounds(t *testing.T) {
	sh := testkit.NeedShell(t, "sh")
	dir := t.TempDir()
	writePlugin(t, dir, "p", `{"name":"p","version":"1","tools":[
		{"name":"slow","description":"d","command":["`+sh+`","-c","echo started; sleep 30 & sleep 30"]},
		{"name":"flood","description":"d","command":["`+sh+`","-c","head -c 3000000 /dev/zero | tr '\\\\0' x"]}]}`, nil)
	ts, warnings := load(t, dir, Host{})
	if len(ts) != 2 {
		t.Fatalf("tools %v, warnings %q", ts, warnings)
	}
	slow := ts[0].(*Tool)
	slow.timeout = 200 * time.Millisecond
	res := call(t, slow, `{}`)
	if !res.IsError || !strings.Contains(res.Output, "did not finish within 200ms and was stopped; its output so far:\nstarted") {
		t.Errorf("slow: %+v", res)
	}
	res = call(t, ts[1], `{}`)
	if res.IsError || len(res.Output) > maxStdout+100 || !strings.Contains(res.Output, "more bytes of output were dropped") {
		t.Errorf("flood: error %v, %d bytes, tail %q", res.IsError, len(res.Output), res.Output[max(0, len(res.Output)-80):])
	}
}
