//go:build linux

package run_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// TestConfinedMCPServerKeptInTheSharedTmp: a stdio MCP server whose program and working
// dir lie in the shared temp dir (neither the work dir nor HOME) is confined under the
// sandbox and still starts and serves where the commands get a /tmp of their own: its
// program's dir and its cwd stay in sight there, read-only, while the rest of the shared
// temp dir stays hidden.
func TestConfinedMCPServerKeptInTheSharedTmp(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	progDir, cwd, hidden := mkTemp(t, "mcp-prog-"), mkTemp(t, "mcp-cwd-"), mkTemp(t, "other-")
	prog := filepath.Join(progDir, "server")
	b, err := os.ReadFile(mcpServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"tmp": map[string]any{"command": prog, "cwd": cwd}}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	look := `ls ` + hidden + ` >/dev/null 2>&1 && echo hidden:seen; ls ` + progDir + ` && echo prog:seen; touch ` + progDir + `/new 2>/dev/null || echo prog:read-only`
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("call", "echo", `{"text":"still works"}`), scripted.CallID("look", "Shell", callArgs(t, map[string]any{"command": look}))),
		scripted.Text("done"))
	r := kimi(t, srv, invocation{args: []string{"--output-format", "stream-json", "--mcp-strict", "--mcp-config-file", cfg, "--sandbox", "workspace-write", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	if w := nsWarnings(evs); len(w) > 0 {
		t.Skipf("no /tmp of the run's own here: %q", w)
	}
	res := results(evs)
	if out, _ := res["call"]["output"].(string); !strings.Contains(out, "still works") {
		t.Errorf("the confined server did not serve: %v", out)
	}
	out, _ := res["look"]["output"].(string)
	for _, want := range []string{"server\nprog:seen", "prog:read-only"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hidden:seen") {
		t.Errorf("the rest of the shared temp dir is in sight:\n%s", out)
	}
}

// mkTemp makes a dir in the shared temp dir (not below a test's own temp dir), removed
// when the test ends.
func mkTemp(t *testing.T, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
