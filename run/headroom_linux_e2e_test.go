package run_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// pidsCgroup makes a pids cgroup allowing limit tasks, below this process's own (cgroup
// v1's pids hierarchy) or the v2 root, and removes it at the end; it skips where none can
// be made (not root, no pids controller).
func pidsCgroup(t *testing.T, limit int) string {
	t.Helper()
	var parent string
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if p := strings.SplitN(line, ":", 3); len(p) == 3 && strings.Contains(","+p[1]+",", ",pids,") {
				parent = filepath.Join("/sys/fs/cgroup/pids", p[2])
			}
		}
	}
	if parent == "" {
		if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
			parent = "/sys/fs/cgroup"
			os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0o644)
		}
	}
	if os.Geteuid() != 0 || parent == "" {
		t.Skip("no pids cgroup can be made here")
	}
	dir, err := os.MkdirTemp(parent, "kimi-run-headroom-")
	if err != nil {
		t.Skipf("no pids cgroup can be made here: %v", err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(fmt.Sprint(limit)), 0o644); err != nil {
		t.Skipf("no pids controller in %s: %v", dir, err)
	}
	return dir
}

// TestTooFewThreadsLeft: started in a pids cgroup with little room, kimi-run ends with a
// result line and exit 75 (try again later) before it starts anything, instead of Go's
// abort when it cannot make a thread.
func TestTooFewThreadsLeft(t *testing.T) {
	t.Parallel()
	dir := pidsCgroup(t, 24)
	srv := scripted.New(t, scripted.Text("never"))
	cmd := exec.Command("sh", "-c", `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`, "sh", dir,
		binary, "-w", t.TempDir(), "--output-format", "stream-json", "-p", "hi")
	cmd.Env = append(coverEnv(), "HOME="+t.TempDir(), "KIMI_API_KEY="+testKey, "KIMI_MODEL_NAME=m", "KIMI_BASE_URL="+srv.URL(), "KIMI_RUN_NO_ROOT_WARNING=1",
		"PATH="+os.Getenv("PATH"))
	r := checkNoKey(t, runCmd(t, cmd))
	if r.code != 75 {
		t.Fatalf("exit %d, want 75\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	res := evs[len(evs)-1]
	e, _ := res["error"].(map[string]any)
	if e["kind"] != "resources" || e["retryable"] != true || !strings.Contains(fmt.Sprint(e["message"]), "too few threads or processes left") {
		t.Errorf("result error = %v", res["error"])
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}
