package run

import (
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/internal/scrub"
)

func TestExitHookRunsItsActionOnce(t *testing.T) {
	t.Parallel()
	var h exitHook
	var order []string
	h.run() // no hook yet
	h.set(func() { order = append(order, "kill") })
	h.run()
	if got := strings.Join(order, " "); got != "kill" {
		t.Errorf("order = %q", got)
	}
}

func TestServerEnvironDropsTheKeys(t *testing.T) {
	t.Parallel()
	got := (&scrub.Set{}).Environ([]string{"PATH=/bin", "KIMI_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "KIMI_MODEL_NAME=m"}, config.CredentialVars, nil)
	if strings.Join(got, " ") != "PATH=/bin KIMI_MODEL_NAME=m" {
		t.Errorf("environment = %q", got)
	}
	// A key the user put in the server's own env is set on top of this by the launcher
	// (launch.TestEnvironmentRule).
}
