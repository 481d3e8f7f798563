//go:build unix

package hooks

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

func TestTimeoutKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	e, rec := engine(t, Hook{Event: Stop, Command: "sleep 300 & echo $! > " + pidFile + "; wait", Timeout: time.Second})
	got := e.Fire(context.Background(), Stop, "", nil)
	if got.Blocked {
		t.Errorf("a timed-out hook blocked: %+v", got)
	}
	h := rec.Of(event.TypeHook)[0].Data.(event.Hook)
	if !h.TimedOut || h.ExitCode != -1 {
		t.Errorf("hook event = %+v", h)
	}
	if ws := rec.Of(event.TypeWarning); len(ws) != 1 || !strings.Contains(ws[0].Data.(event.Warning).Message, "timed out after 1s") {
		t.Errorf("warnings = %v", ws)
	}
	// SIGKILL is delivered asynchronously: WaitGone waits (bounded) for the child to go.
	testkit.WaitGone(t, testkit.ReadPID(t, pidFile))
}
