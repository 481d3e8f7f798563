//go:build unix

package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/testkit"
)

// What a tool leaves running in its group is stopped when the call ends: a tool is one
// call, not a way to start a daemon past its answer.
func TestPluginToolLeavesNothingRunning(t *testing.T) {
	sh := testkit.NeedShell(t, "sh")
	dir := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	writePlugin(t, dir, "p", `{"name":"p","version":"1","tools":[
		{"name":"leaver","description":"d","command":["`+sh+`","-c","sleep 30 >/dev/null 2>&1 & echo $! > `+pidFile+`; echo done"]}]}`, nil)
	ts, _ := load(t, dir, Host{})
	if res := call(t, ts[0], `{}`); res.Output != "done" {
		t.Fatalf("leaver: %+v", res)
	}
	raw, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file: %q %v", raw, err)
	}
	// The call returns once the group is gone (launch.Stop waits for it); a zombie not yet
	// reaped by init has ended too.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(stat), ") Z ") {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the background process %d the tool left outlived the call (%v)", pid, err)
		}
	}
}
