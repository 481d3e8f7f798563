//go:build linux

package run_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// outsideNames lists what dir holds, for the tests that check kimi-run wrote nothing there.
func outsideNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestEscapeSessionFolderSwappedDuringTheRun: with the session dir inside the work dir, a
// sandboxed command moves the run's own session folder aside and puts a link to a
// directory outside in its place while the run goes on. The run's later writes in its
// session folder (the file tools' before-images, the meta file at its end) do not follow
// it: nothing lands outside, and the conversation stays in the real folder.
func TestEscapeSessionFolderSwappedDuringTheRun(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work, outside := t.TempDir(), t.TempDir()
	sessions := filepath.Join(work, ".sessions")
	swap := "mv .sessions/s1 .sessions/s1.real && ln -s " + outside + " .sessions/s1"
	steps := []scripted.Part{
		scripted.Call("Shell", callArgs(t, map[string]any{"command": swap})),
		scripted.Call("WriteFile", `{"path":"x.txt","content":"x\n"}`),
	}
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if n := len(req.MessagesOf("tool")); n < len(steps) {
			return scripted.ToolCalls(steps[n])
		}
		return scripted.Text("done")
	})
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--sandbox", "workspace-write", "-p", "go")})
	t.Logf("exit %d\n%s", r.code, r.stderr)
	if _, err := os.Readlink(filepath.Join(sessions, "s1")); err != nil {
		t.Fatalf("the folder was not swapped: %v", err)
	}
	if got := outsideNames(t, outside); len(got) > 0 {
		t.Errorf("the run wrote outside: %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(sessions, "s1.real", "context.jsonl")); err != nil || !strings.Contains(string(b), "done") {
		t.Errorf("the conversation is not whole in the real folder: %v", err)
	}
}

// TestEscapeFilesChangedStateLinkAfterAKill: a run is killed in a turn and leaves the
// files_changed state in its session folder; before the turn is continued, a link to a
// directory outside takes the place of the state's git objects (as a sandboxed command of
// another run could plant it, the session dir lying in the work dir). The run that
// continues the turn does not take that state up: git writes nothing outside.
func TestEscapeFilesChangedStateLinkAfterAKill(t *testing.T) {
	t.Parallel()
	work := gitRepo(t, map[string]string{"a.txt": "a\n"})
	sessions, goOn, outside := t.TempDir(), filepath.Join(t.TempDir(), "go-on"), t.TempDir()
	steps := []scripted.Part{
		scripted.CallID("c1", "Shell", `{"command":"echo one > c1.txt"}`),
		scripted.CallID("c2", "Shell", fmt.Sprintf(`{"command":"echo two > c2.txt; test -e %s || sleep 60"}`, goOn)),
	}
	srv := callsInOrder(t, steps)
	args := crashTurn(sessions, "--output-format", "stream-json")
	written := func() bool {
		_, err := os.Stat(filepath.Join(work, "c2.txt"))
		return err == nil
	}
	first := kimi(t, srv, invocation{dir: work, args: args, signal: syscall.SIGKILL, signalAfter: 2, signalOn: "tool_call", ready: written})
	if first.code == 0 {
		t.Fatalf("the first attempt was not stopped\n%s", first.stderr)
	}
	objects := filepath.Join(sessions, "job-1", "changes", "git", "0", "objects")
	if err := os.Rename(objects, filepath.Join(outside, "objects")); err != nil {
		t.Fatalf("the killed run left no git objects in its state: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "objects"), objects); err != nil {
		t.Fatal(err)
	}
	before := outsideNames(t, outside)
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	retry := kimi(t, srv, invocation{dir: work, args: args})
	if retry.code != 0 {
		t.Fatalf("retry exit %d\n%s\n%s", retry.code, retry.stdout, retry.stderr)
	}
	if got := outsideNames(t, outside); strings.Join(got, "|") != strings.Join(before, "|") {
		t.Errorf("git wrote outside: before %v, after %v", before, got)
	}
	if !strings.Contains(retry.stdout+retry.stderr, "holds a symbolic link") {
		t.Errorf("the retry does not say why the killed run's changes are not listed\n%s", retry.stderr)
	}
}

// TestEscapeSubagentsFolderLink: a sandboxed command puts a link to a directory outside
// in the place of its session's subagents folder; the subagent started next keeps its
// conversation nowhere outside.
func TestEscapeSubagentsFolderLink(t *testing.T) {
	t.Parallel()
	needLandlock(t, 1)
	work, outside := t.TempDir(), t.TempDir()
	sessions := filepath.Join(work, ".sessions")
	plant := "rm -rf .sessions/s1/subagents && ln -s " + outside + " .sessions/s1/subagents"
	steps := []scripted.Part{
		scripted.Call("Shell", callArgs(t, map[string]any{"command": plant})),
		scripted.Call("Agent", `{"description":"look","prompt":"Look around.","subagent_type":"explore"}`),
	}
	srv := scripted.NewFunc(t, func(req scripted.Request) scripted.Response {
		if users := req.MessagesOf("user"); messageText(users[0]) == "Look around." {
			return scripted.Text("seen")
		}
		if n := len(req.MessagesOf("tool")); n < len(steps) {
			return scripted.ToolCalls(steps[n])
		}
		return scripted.Text("done")
	})
	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "s1", "--sandbox", "workspace-write", "-p", "go")})
	t.Logf("exit %d\n%s", r.code, r.stderr)
	if _, err := os.Readlink(filepath.Join(sessions, "s1", "subagents")); err != nil {
		t.Fatalf("the link was not planted: %v", err)
	}
	if got := outsideNames(t, outside); len(got) > 0 {
		t.Errorf("the run wrote outside: %v", got)
	}
}

// TestEscapeCassetteLink: a link an earlier run's command planted at the --record path is
// not written through: the run refuses it (exit 2) and the file it points to keeps its
// content.
func TestEscapeCassetteLink(t *testing.T) {
	t.Parallel()
	work, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cas := filepath.Join(work, "run.cassette.jsonl")
	if err := os.Symlink(victim, cas); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t, scripted.Text("done"))
	r := kimi(t, srv, invocation{dir: work, args: []string{"--no-session", "--record", cas, "-p", "go"}})
	if r.code != 2 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("a cassette path that is a link: exit %d, want 2 naming the link\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the link's target was written (%d bytes)", len(b))
	}
}
