//go:build linux

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// TestEscapeRewindThroughPlantedLink: a sandboxed run's command replaces a directory the
// file tools wrote in with a link to a directory outside; a later --rewind-files, run
// without the sandbox by a person, follows no link below the work dir: the files outside
// are neither deleted, overwritten nor copied into the session, each file is reported as
// not put back (event and warning), and the rewind goes on.
func TestEscapeRewindThroughPlantedLink(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work, sessions, outside := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, work, map[string]string{"d/keep": "", "e/conf.txt": "orig\n", "f/ok.txt": "ok\n"})
	writeFiles(t, outside, map[string]string{"x.txt": "precious\n", "conf.txt": "outside secret\n"})
	plant := "mv d d.real && ln -s " + outside + " d && mv e e.real && ln -s " + outside + " e"
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"d/x.txt","content":"new\n"}`),
			scripted.Call("WriteFile", `{"path":"e/conf.txt","content":"changed\n"}`),
			scripted.Call("WriteFile", `{"path":"f/ok.txt","content":"edited\n"}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":`+quote(plant)+`}`)),
		scripted.Text("done"),
		scripted.Text("again"),
	)
	first := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--sandbox", "workspace-write", "-p", "go")})
	if first.code != 0 {
		t.Fatalf("run 1: exit %d\n%s", first.code, first.stderr)
	}
	if target, err := os.Readlink(filepath.Join(work, "d")); err != nil || target != outside {
		t.Fatalf("the link was not planted: %q, %v", target, err)
	}
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--rewind", "0", "--rewind-files", "--output-format", "stream-json", "-p", "again")})
	if r.code != 0 {
		t.Fatalf("rewind: exit %d\n%s", r.code, r.stderr)
	}
	if x, c := readOr(filepath.Join(outside, "x.txt"), "-"), readOr(filepath.Join(outside, "conf.txt"), "-"); x != "precious\n" || c != "outside secret\n" {
		t.Errorf("outside after the rewind: x.txt %q, conf.txt %q", x, c)
	}
	if ok := readOr(filepath.Join(work, "f", "ok.txt"), "-"); ok != "ok\n" {
		t.Errorf("f/ok.txt %q: the rest of the rewind was not done", ok)
	}
	rw := testkit.OfType(events(t, r.stdout), "session_rewind")
	if len(rw) != 1 {
		t.Fatalf("%d session_rewind events", len(rw))
	}
	if a := fileActions(rw[0]); a["x.txt"] != "not_restored" || a["conf.txt"] != "not_restored" || a["ok.txt"] != "restored" {
		t.Errorf("files: %v", rw[0]["files"])
	}
	for _, name := range []string{"d/x.txt", "e/conf.txt"} {
		if !strings.Contains(r.stderr, filepath.Join(work, name)+" was not put back: a symbolic link lies on the way below") {
			t.Errorf("stderr does not name %s as refused:\n%s", name, r.stderr)
		}
	}
	filepath.WalkDir(sessions, func(path string, d os.DirEntry, err error) error {
		if b, _ := os.ReadFile(path); err == nil && !d.IsDir() && strings.Contains(string(b), "outside secret") {
			t.Errorf("%s holds the outside file's content", path)
		}
		return nil
	})
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
