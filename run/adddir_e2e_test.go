//go:build unix

package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// Issue 26 #6: a missing --add-dir was made through a symbolic link in the work dir, so a
// link planted by one run's command (`ln -s OUTSIDE link`) had the next run, given
// `--add-dir $WORK/link/newdir`, make OUTSIDE/newdir. A link there is refused now, and the
// missing part is made without following links; a link elsewhere (a system's /tmp) is
// still followed.
func TestAddDirIsNotCreatedThroughAPlantedLink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{work, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Run 1: the model plants the link.
	srv := scripted.New(t, scripted.ToolCalls(scripted.CallID("plant", "Shell", `{"command":"ln -s `+outside+` link && ln -s `+outside+` .cache"}`)), scripted.Text("done"))
	if r := kimi(t, srv, invocation{dir: work, args: []string{"-p", "x"}}); r.code != 0 {
		t.Fatalf("run 1: exit %d\n%s", r.code, r.stderr)
	}
	// Run 2: a CI job names a cache dir below the link, sandboxed or not.
	for _, args := range [][]string{
		{"--add-dir", filepath.Join(work, "link", "newdir")},
		{"--add-dir", filepath.Join(work, ".cache", "go-build", "deep"), "--output-format", "stream-json"},
	} {
		srv := scripted.New(t, scripted.Text("done"))
		r := kimi(t, srv, invocation{dir: work, args: append(args, "-p", "x")})
		if r.code != 2 || !strings.Contains(r.stderr, "is a symbolic link inside "+work) {
			t.Errorf("%v: exit %d, want 2 naming the link\n%s", args, r.code, r.stderr)
		}
		if len(srv.Requests()) != 0 {
			t.Errorf("%v: the run went on", args)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("directories appeared outside the work dir: %v", entries)
	}

	// A link outside the work dir and the other --add-dirs is followed, as a system's.
	other := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(other, "sys")); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(other, "sys", "a", "b")
	srv = scripted.New(t, scripted.Text("done"))
	r := kimi(t, srv, invocation{dir: work, args: []string{"--add-dir", missing, "-p", "x"}})
	if r.code != 0 || !strings.Contains(r.stderr, "did not exist: created it") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if fi, err := os.Stat(filepath.Join(outside, "a", "b")); err != nil || !fi.IsDir() {
		t.Errorf("the directory was not made through the system link: %v", err)
	}
}
