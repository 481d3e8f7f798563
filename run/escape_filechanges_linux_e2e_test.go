//go:build linux

package run_test

import (
	endian "encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// What files_changed reads of the work dir itself (not through git): the repository's
// index it copies into the session's folder, the files the file tools touched, the .git
// file and git's settings. A command can put a link, or a FIFO, in place of each.

// watchOpens watches dir (not what lies below its entries) for files opened or read; the
// returned func ends the watch and lists their names ("." for dir itself).
func watchOpens(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN|unix.IN_ACCESS); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	return func() []string {
		defer unix.Close(fd)
		var seen []string
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if err != nil || n <= 0 {
				return seen
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				size := int(endian.NativeEndian.Uint32(buf[off+12:]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+size]), "\x00")
				if name == "" {
					name = "."
				}
				seen = append(seen, name)
				off += unix.SizeofInotifyEvent + size
			}
		}
	}
}

// TestEscapeGitIndexLinkIsNotCopied: the repository's .git/index is a link to a file
// outside (a secret). The snapshot before the first command does not open it, so nothing
// of it reaches the session's folder; files_changed is still whole, git starting from no
// index as it does without one.
func TestEscapeGitIndexLinkIsNotCopied(t *testing.T) {
	t.Parallel()
	work, sessions, outside := gitRepo(t, map[string]string{"a.txt": "a\n"}), t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("MARKER-OUTSIDE-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(work, ".git", "index")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, index); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo new > n.txt"}`)),
		scripted.Text("done"))
	opened := watchOpens(t, outside)
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--output-format", "stream-json", "-p", "x")})
	if seen := opened(); len(seen) > 0 {
		t.Errorf("the run opened what the link at .git/index leads to: %v", seen)
	}
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Join(changedFiles(t, lastResult(t, r)), "|"); got != "n.txt created +1 -0" {
		t.Errorf("files_changed = %q", got)
	}
}

// TestEscapeGitFIFOsBlockNothing: a FIFO in place of .git/index (planted before the run),
// or of .git itself (by the run's sandboxed command, before the run's end compares git's
// settings), is not opened to wait for a writer that never comes: the run ends.
func TestEscapeGitFIFOsBlockNothing(t *testing.T) {
	t.Parallel()
	t.Run("index", func(t *testing.T) {
		t.Parallel()
		work := gitRepo(t, map[string]string{"a.txt": "a\n"})
		index := filepath.Join(work, ".git", "index")
		if err := os.Remove(index); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(index, 0o600); err != nil {
			t.Fatal(err)
		}
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo new > n.txt"}`)),
			scripted.Text("done"))
		r := kimi(t, srv, invocation{dir: work, args: []string{"--output-format", "stream-json", "-p", "x"}})
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if got := strings.Join(changedFiles(t, lastResult(t, r)), "|"); got != "n.txt created +1 -0" {
			t.Errorf("files_changed = %q", got)
		}
	})
	t.Run(".git", func(t *testing.T) {
		t.Parallel()
		needLandlock(t, 1)
		work := gitRepo(t, map[string]string{"a.txt": "a\n"})
		srv := scripted.New(t,
			scripted.ToolCalls(scripted.CallID("plant", "Shell", `{"command":"rm -rf .git && mkfifo .git"}`)),
			scripted.Text("done"))
		r := kimi(t, srv, invocation{dir: work, args: []string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}})
		if res := results(events(t, r.stdout)); res["plant"]["is_error"] != false {
			t.Fatalf("the plant failed, so nothing was attempted: %v", res["plant"])
		}
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	})
}

// TestEscapeGitStoreFIFOsBlockNothing: a sandboxed command puts a FIFO in the repository's
// object store, which the git of files_changed opens at the run's end as any reader does,
// and no --timeout is given. In the place of info/alternates it is found before git runs;
// in the place of the loose object git reads to count a.txt's lines as they were, git's
// own limit (shortened by the hidden --files-changed-git-limit) ends the wait. Either way
// the run ends with the task's exit code, 0, and the work dir listed as unseen with a
// warning that says why.
func TestEscapeGitStoreFIFOsBlockNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, plant string // plant: the path of the FIFO, "" for a.txt's object
		args        []string
		warning     string
	}{
		{"alternates", ".git/objects/info/alternates", nil, "alternates is no regular file: git would wait on it"},
		{"loose object", "", []string{"--files-changed-git-limit", "1s"}, "git did not finish within 1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			needLandlock(t, 1)
			work := gitRepo(t, map[string]string{"a.txt": "a\n"})
			if tt.plant == "" {
				cmd := exec.Command("git", "rev-parse", "HEAD:a.txt")
				cmd.Dir = work
				out, err := cmd.Output()
				if err != nil {
					t.Fatal(err)
				}
				id := strings.TrimSpace(string(out))
				tt.plant = ".git/objects/" + id[:2] + "/" + id[2:]
			}
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("plant", "Shell", callArgs(t, map[string]any{
					"command": "echo b > a.txt && mkdir -p " + filepath.Dir(tt.plant) + " && rm -f " + tt.plant + " && mkfifo " + tt.plant}))),
				scripted.Text("done"))
			args := append([]string{"--output-format", "stream-json", "--sandbox", "workspace-write", "-p", "x"}, tt.args...)
			r := kimi(t, srv, invocation{dir: work, args: args})
			evs := events(t, r.stdout)
			if res := results(evs); res["plant"]["is_error"] != false {
				t.Fatalf("the plant failed, so nothing was attempted: %v", res["plant"])
			}
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			res := lastResult(t, r)
			if got := changedFiles(t, res); len(got) != 0 {
				t.Errorf("files_changed = %v from a store git could not read", got)
			}
			if unseen, _ := res["files_unseen"].([]any); len(unseen) != 1 || unseen[0] != "." {
				t.Errorf("files_unseen = %v, want the work dir", res["files_unseen"])
			}
			if w := strings.Join(warnings(evs), "\n"); !strings.Contains(w, tt.warning) {
				t.Errorf("no warning says %q: %q", tt.warning, w)
			}
		})
	}
}

// TestEscapeFilesChangedReadsNoLink: a file the file tools wrote, d/x.txt, lies behind a
// link once a command moved d aside and put a link to a folder outside in its place. The
// run's end does not read the file outside (its lines are not counted as the run's): as
// git sees it, no d/x.txt is there, and the list is git's.
func TestEscapeFilesChangedReadsNoLink(t *testing.T) {
	t.Parallel()
	work, outside := gitRepo(t, map[string]string{"a.txt": "a\n"}), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.txt"), []byte("outside 1\noutside 2\noutside 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("write", "WriteFile", `{"path":"d/x.txt","content":"one\n"}`)),
		scripted.ToolCalls(scripted.CallID("plant", "Shell", callArgs(t, map[string]any{"command": "mv d d.real && ln -s " + outside + " d"}))),
		scripted.Text("done"))
	opened := watchOpens(t, outside)
	r := kimi(t, srv, invocation{dir: work, args: []string{"--output-format", "stream-json", "-p", "x"}})
	if seen := opened(); len(seen) > 0 {
		t.Errorf("the run opened what the link d leads to: %v", seen)
	}
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if res := results(events(t, r.stdout)); res["write"]["is_error"] != false || res["plant"]["is_error"] != false {
		t.Fatalf("a call failed, so nothing was attempted: %v", res)
	}
	if got := strings.Join(changedFiles(t, lastResult(t, r)), "|"); got != "d created +1 -0|d.real/x.txt created +1 -0" {
		t.Errorf("files_changed = %q", got)
	}
}

// TestEscapeChangesStateFIFOBlocksNothing: the log of files_changed's state in the
// session's folder is a FIFO nobody writes to (a command of an earlier run can write there
// when the sessions are kept in the work dir). The next run of the session does not wait
// for a writer: it takes nothing up, and ends.
func TestEscapeChangesStateFIFOBlocksNothing(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t, scripted.Text("one"), scripted.Text("two"))
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "-p", "x")}); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	state := filepath.Join(sessions, "s1", "changes")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(state, "log.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "-p", "x")}); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}
