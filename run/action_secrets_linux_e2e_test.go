//go:build linux

package run_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// Issue 26 #1, through the action: the key arrives in the step's environment, so every
// ancestor of kimi-run — the step's shell, the action's script and its subshells — held it
// in the block /proc/PID/environ shows, for a command of the run to read however kimi-run
// hides its own. The script starts again without it and hands the key over a pipe: a
// command that reads the environment of every ancestor finds it nowhere.
func TestActionKeepsTheKeyFromEveryAncestor(t *testing.T) {
	t.Parallel()
	walk := `p=$PPID; while [ "$p" -gt 1 ]; do ` +
		`echo "== $p $(tr '\0' ' ' </proc/$p/cmdline | cut -c1-80)"; ` +
		`tr '\0' '\n' </proc/$p/environ 2>/dev/null | rev; ` +
		`p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2); done`
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", fmt.Sprintf(`{"command":%q}`, walk))),
		scripted.Text("done"),
	)
	r := runActionScript(t, t.TempDir(), map[string]string{
		"INPUT_PROMPT":        "read every ancestor's environment",
		"INPUT_OUTPUT_FORMAT": "stream-json",
		"INPUT_MODEL":         "test-model",
		"INPUT_BASE_URL":      srv.URL(),
		"INPUT_API_KEY":       testKey,
		"INPUT_ARGS":          "--sandbox-network\noff",
		// Without the commands' process namespace, where the ancestors are in sight (in it
		// they are not: TestEscapeNamespaces).
		"KIMI_RUN_NS": "off",
	})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Fatalf("the api-key input did not reach the provider: %q", got)
	}
	out := lastToolOutput(t, srv, 1)
	// The walk read the action script's own environment on its way up.
	if !strings.Contains(out, "action-run.sh") || !strings.Contains(out, reverse("INPUT_PROMPT=read every")) {
		t.Fatalf("the command did not read its ancestors as the test expects:\n%s", out)
	}
	// The script tells the runner to mask the key in the log, its one line that holds it.
	logs := strings.ReplaceAll(r.stdout+r.stderr, "::add-mask::"+testKey+"\n", "")
	for _, form := range []string{testKey, reverse(testKey), testKey[8:], reverse(testKey[8:])} {
		if strings.Contains(out, form) || strings.Contains(logs, form) {
			t.Errorf("an ancestor's environment gave the key away as %q:\n%s", form, out)
		}
	}
}
