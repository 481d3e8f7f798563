//go:build linux

package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The git escapes: files_changed snapshots the work dirs' git state unconfined, so the
// snapshot must take no orders from the work dir's own .git/config or .gitattributes,
// which a sandboxed command can write. Each plant would run a command outside the sandbox
// that writes victim.txt in a dir the sandbox refuses.

// gitPlant is a Shell command that plants a git setting which runs a command writing
// victim, then changes a file so that the next snapshot has work to do.
func gitPlant(kind, victim string) string {
	run := fmt.Sprintf("echo x > %s", victim)
	switch kind {
	case "filter":
		return fmt.Sprintf(`git config filter.kr.clean 'sh -c "%s; cat"' && echo '* filter=kr' > .gitattributes && echo new > n.txt`, run)
	case "fsmonitor":
		return fmt.Sprintf(`git config core.fsmonitor '%s; true' && echo new > n.txt`, run)
	}
	panic(kind)
}

// sandboxedPlant runs one sandboxed Shell call planting kind in a new repository, with
// extra flags, and returns the work dir, the victim's path and the run's result.
func sandboxedPlant(t *testing.T, kind string, extra ...string) (work, victim string, r result) {
	t.Helper()
	work = gitRepo(t, map[string]string{"a.txt": "a\n"})
	victim = filepath.Join(t.TempDir(), "victim.txt")
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("plant", "Shell", fmt.Sprintf(`{"command":%q}`, gitPlant(kind, victim)))),
		scripted.Text("done"))
	args := append([]string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}, extra...)
	r = kimi(t, srv, invocation{dir: work, args: args})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if res := results(events(t, r.stdout)); res["plant"]["is_error"] != false {
		t.Fatalf("the plant failed, so nothing was attempted: %v", res["plant"])
	}
	return work, victim, r
}

// TestEscapeThroughGitAtTheEnd: a filter or an fsmonitor a sandboxed command configures
// does not run when the run compares the work dir at its end, and the run still lists the
// files the command changed and says it changed .git/config.
func TestEscapeThroughGitAtTheEnd(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	for _, kind := range []string{"filter", "fsmonitor"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			_, victim, r := sandboxedPlant(t, kind)
			if _, err := os.Stat(victim); err == nil {
				t.Errorf("the %s planted by a sandboxed command ran outside the sandbox", kind)
			}
			res := lastResult(t, r)
			if got := strings.Join(changedFiles(t, res), "|"); !strings.Contains(got, "n.txt created +1 -0") {
				t.Errorf("files_changed = %q", got)
			}
			if got := fmt.Sprint(res["git_settings_changed"]); got != "[.git/config]" {
				t.Errorf("git_settings_changed = %s, want [.git/config]", got)
			}
			if !strings.Contains(r.stdout, `changed .git/config`) || !strings.Contains(r.stderr, "changed .git/config") {
				t.Errorf("no warning names .git/config:\n%s\n%s", r.stdout, r.stderr)
			}
		})
	}
}

// TestEscapeThroughGitInTheNextRun: what a sandboxed run planted (with --files-changed
// tools, so that it never runs git itself) does not run when the next run, sandboxed or
// not, takes its snapshot before its first command.
func TestEscapeThroughGitInTheNextRun(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	for _, kind := range []string{"filter", "fsmonitor"} {
		for _, next := range []string{"sandboxed", "unsandboxed"} {
			t.Run(kind+"/"+next, func(t *testing.T) {
				t.Parallel()
				work, victim, _ := sandboxedPlant(t, kind, "--files-changed", "tools")
				srv := scripted.New(t,
					scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo m > m.txt"}`)),
					scripted.Text("done"))
				args := []string{"--output-format", "stream-json", "-p", "y"}
				if next == "sandboxed" {
					args = append(args, "--sandbox", "workspace-write")
				}
				r := kimi(t, srv, invocation{dir: work, args: args})
				if r.code != 0 {
					t.Fatalf("exit %d\n%s", r.code, r.stderr)
				}
				if _, err := os.Stat(victim); err == nil {
					t.Errorf("the %s planted by an earlier sandboxed run ran in the next run", kind)
				}
				if got := strings.Join(changedFiles(t, lastResult(t, r)), "|"); got != "m.txt created +1 -0" {
					t.Errorf("files_changed = %q", got)
				}
			})
		}
	}
}
