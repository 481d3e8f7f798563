package run_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/mcptest"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestBare: --bare leaves out everything the machine and the work dir hold — the user's
// config.toml (its model and provider, its hooks), mcp.json, the user's and the project's
// skills, AGENTS.md and .kimi/AGENTS.md — and keeps what the command line names: a config
// file, MCP servers, skill dirs, a system prompt file (issue 32 #7). The run without
// --bare, on the same machine, shows each of them, so each check can fail.
func TestBare(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the hook commands are POSIX shell")
	}
	marks := t.TempDir()
	// The machine's configuration: a provider of its own, a hook, an MCP server, skills.
	userSrv := scripted.NewFunc(t, func(scripted.Request) scripted.Response { return scripted.Text("from the user's provider") })
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{Name: "web"}, ""))
	t.Cleanup(web.Close)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".kimi/config.toml": `default_model = "mine"
[models.mine]
provider = "own"
model = "the-users-model"
[providers.own]
type = "openai_legacy"
base_url = "` + userSrv.URL() + `"
api_key = "sk-users-own-key-123456789"

[[hooks]]
event = "SessionStart"
command = "touch ` + filepath.Join(marks, "user-hook") + `"
`,
		".kimi/mcp.json":                    fmt.Sprintf(`{"mcpServers": {"users-web": {"url": %q}}}`, web.URL+"/mcp"),
		".kimi/skills/users-skill/SKILL.md": "---\nname: users-skill\ndescription: the user's skill\n---\nDo it the user's way.\n",
	})
	work := t.TempDir()
	writeFiles(t, work, map[string]string{
		".git/HEAD":                           "ref: refs/heads/main\n",
		"AGENTS.md":                           "PROJECT-AGENTS-MD: always run make lint.\n",
		".kimi/AGENTS.md":                     "KIMI-DIR-AGENTS-MD: use tabs.\n",
		".kimi/skills/project-skill/SKILL.md": "---\nname: project-skill\ndescription: the project's skill\n---\nDo it the project's way.\n",
	})
	// What a CI job names on its command line instead.
	own := t.TempDir()
	writeFiles(t, own, map[string]string{
		"ci.toml": `[[hooks]]
event = "SessionStart"
command = "touch ` + filepath.Join(marks, "ci-hook") + `"
`,
		"skills/ci-skill/SKILL.md": "---\nname: ci-skill\ndescription: the job's skill\n---\nDo it the job's way.\n",
		"prompt.md":                "JOB-NOTES: the job's own instructions.\n",
	})
	machine := []string{"PROJECT-AGENTS-MD", "KIMI-DIR-AGENTS-MD", "users-skill", "project-skill"}

	type seen struct {
		userProvider, userHook, ciHook bool
		system                         string
		mcp                            []string
	}
	runIt := func(t *testing.T, args ...string) seen {
		t.Helper()
		for _, m := range []string{"user-hook", "ci-hook"} {
			os.Remove(filepath.Join(marks, m))
		}
		before := len(userSrv.Requests())
		srv := scripted.New(t, scripted.Text("from the job's endpoint"))
		r := kimi(t, srv, invocation{dir: work, env: map[string]string{"HOME": home},
			args: append([]string{"--output-format", "stream-json", "--no-session"}, append(args, "-p", "x")...)})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		var s seen
		reqs := srv.Requests()
		if s.userProvider = len(userSrv.Requests()) > before; s.userProvider {
			reqs = userSrv.Requests()[before:]
		}
		s.system, _ = reqs[0].Messages()[0]["content"].(string)
		_, err := os.Stat(filepath.Join(marks, "user-hook"))
		s.userHook = err == nil
		_, err = os.Stat(filepath.Join(marks, "ci-hook"))
		s.ciHook = err == nil
		servers, _ := events(t, r.stdout)[0]["mcp_servers"].([]any)
		for _, v := range servers {
			s.mcp = append(s.mcp, v.(map[string]any)["name"].(string))
		}
		return s
	}

	t.Run("without --bare the machine's configuration applies", func(t *testing.T) {
		s := runIt(t)
		if !s.userProvider || !s.userHook || strings.Join(s.mcp, ",") != "users-web" {
			t.Errorf("user provider %v, user hook %v, MCP servers %v: want all of the machine's", s.userProvider, s.userHook, s.mcp)
		}
		for _, m := range machine {
			if !strings.Contains(s.system, m) {
				t.Errorf("system prompt lacks %s:\n%s", m, s.system)
			}
		}
	})
	t.Run("--bare leaves out each of them", func(t *testing.T) {
		s := runIt(t, "--bare")
		if s.userProvider {
			t.Errorf("the user's config.toml chose the provider")
		}
		if s.userHook {
			t.Errorf("the user's config.toml hook ran")
		}
		if len(s.mcp) != 0 {
			t.Errorf("MCP servers started: %v", s.mcp)
		}
		for _, m := range machine {
			if strings.Contains(s.system, m) {
				t.Errorf("system prompt holds %s:\n%s", m, s.system)
			}
		}
		if !strings.Contains(s.system, "No skills found.") {
			t.Errorf("system prompt lists skills:\n%s", s.system)
		}
	})
	t.Run("--bare keeps what the command line names", func(t *testing.T) {
		s := runIt(t, "--bare", "--config-file", filepath.Join(own, "ci.toml"),
			"--mcp-config", fmt.Sprintf(`{"mcpServers": {"job-web": {"url": %q}}}`, web.URL+"/mcp"),
			"--skills-dir", filepath.Join(own, "skills"), "--append-system-prompt", filepath.Join(own, "prompt.md"))
		if s.userProvider || s.userHook || !s.ciHook {
			t.Errorf("user provider %v, user hook %v, job's hook %v", s.userProvider, s.userHook, s.ciHook)
		}
		if strings.Join(s.mcp, ",") != "job-web" {
			t.Errorf("MCP servers = %v, want the command line's only", s.mcp)
		}
		for _, want := range []string{"ci-skill", "JOB-NOTES"} {
			if !strings.Contains(s.system, want) {
				t.Errorf("system prompt lacks %s:\n%s", want, s.system)
			}
		}
		for _, m := range machine {
			if strings.Contains(s.system, m) {
				t.Errorf("system prompt holds %s:\n%s", m, s.system)
			}
		}
	})
}
