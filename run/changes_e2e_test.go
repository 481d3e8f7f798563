package run_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
)

// needGit skips a test where git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// gitRepo makes dir a git repository holding files, committed.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	needGit(t)
	dir := workDir(t, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// changedFiles is result.files_changed as "path change +added -removed" lines.
func changedFiles(t *testing.T, res map[string]any) []string {
	t.Helper()
	var out []string
	list, _ := res["files_changed"].([]any)
	for _, f := range list {
		m := f.(map[string]any)
		line := m["path"].(string) + " " + m["change"].(string)
		if m["binary"] == true {
			line += " binary"
		} else {
			line += " +" + jsonNumber(m["lines_added"]) + " -" + jsonNumber(m["lines_removed"])
		}
		out = append(out, line)
	}
	return out
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFilesChangedInAGitRepository (issue 32 #1): what the file tools wrote and what
// commands did — a deletion, an append to a file already dirty before the run, a commit, a
// rewrite of a file a tool had created — is listed once each with the lines it added and
// removed since the run started; ignored files only when a file tool wrote them; the
// session and the answer file, kept in the work dir, are kimi-run's and not listed.
func TestFilesChangedInAGitRepository(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{
		"keep.txt": "a\nb\nc\n", "edit.go": "one\ntwo\nthree\n", "gone.txt": "x\ny\n", "dirty.txt": "1\n", ".gitignore": "build/\n",
	})
	// Changed before the run: the run's count starts from here, not from the commit.
	os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("1\n2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("left alone\n"), 0o644)
	srv := scripted.New(t,
		scripted.ToolCalls(
			scripted.Call("WriteFile", `{"path":"new.txt","content":"hello\nworld\n"}`),
			scripted.Call("StrReplaceFile", `{"path":"edit.go","edit":{"old":"two","new":"TWO"}}`),
		),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"rm gone.txt && printf '3\\n' >> dirty.txt && mkdir -p build && echo out > build/out.bin && echo made > made.txt && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm wip"}`)),
		scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"build/ignored.txt","content":"seen by the tool\n"}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"printf 'hello\\nthere\\nworld\\n' > new.txt"}`)),
		scripted.Text("Done."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "--session-dir", filepath.Join(dir, "sessions"),
		"-o", filepath.Join(dir, "answer.md"), "-p", "change things"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	res := lastResult(t, r)
	want := []string{
		"build/ignored.txt created +1 -0",
		"dirty.txt modified +1 -0",
		"edit.go modified +1 -1",
		"gone.txt deleted +0 -2",
		"made.txt created +1 -0",
		"new.txt created +3 -0",
	}
	if got := changedFiles(t, res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files_changed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res["files_unseen"] != nil {
		t.Errorf("files_unseen = %v in a repository", res["files_unseen"])
	}
}

// TestFilesChangedWithoutGit: outside a repository the file tools' writes are listed, and
// the result names the work dir as one where a command ran whose changes were not seen.
func TestFilesChangedWithoutGit(t *testing.T) {
	t.Parallel()
	dir := workDir(t, map[string]string{"old.txt": "1\n2\n3\n"})
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.Call("StrReplaceFile", `{"path":"old.txt","edit":{"old":"2\n","new":""}}`)),
		scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo x > by-shell.txt"}`)),
		scripted.Text("Done."),
	)
	r := kimi(t, srv, invocation{dir: dir, args: []string{"--output-format", "stream-json", "-p", "x"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := lastResult(t, r)
	if got := changedFiles(t, res); strings.Join(got, "|") != "old.txt modified +0 -1" {
		t.Errorf("files_changed = %v", got)
	}
	if unseen, _ := res["files_unseen"].([]any); len(unseen) != 1 || unseen[0] != "." {
		t.Errorf("files_unseen = %v, want the work dir", res["files_unseen"])
	}
}

// TestFilesChangedRunsGitOnlyForCommands: git is the costly part (a status of the whole
// work tree, twice), so a run that only reads, or only writes through the file tools, never
// starts it; a run with a command starts it, unless --files-changed tools says not to. A
// git on PATH that logs each start shows it.
func TestFilesChangedRunsGitOnlyForCommands(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t, map[string]string{"a.txt": "a\n"})
	real, _ := exec.LookPath("git")
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$1\" >> "+log+"\nexec "+real+" \"$@\"\n"), 0o755)
	env := map[string]string{"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	tests := []struct {
		name   string
		script []scripted.Response
		git    bool
		want   string
		args   []string
	}{
		{"reads only", []scripted.Response{scripted.ToolCalls(scripted.Call("ReadFile", `{"path":"a.txt"}`)), scripted.Text("ok")}, false, "", nil},
		{"file tools only", []scripted.Response{scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"b.txt","content":"b\n"}`)), scripted.Text("ok")}, false, "b.txt created +1 -0", nil},
		{"a command", []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo c > c.txt"}`)), scripted.Text("ok")}, true, "c.txt created +1 -0", nil},
		{"a command, --files-changed tools", []scripted.Response{scripted.ToolCalls(scripted.Call("Shell", `{"command":"echo d > d.txt"}`)), scripted.Text("ok")}, false, "",
			[]string{"--files-changed", "tools"}},
	}
	for _, tt := range tests {
		os.Remove(log)
		srv := scripted.New(t, tt.script...)
		r := kimi(t, srv, invocation{dir: dir, env: env, proc: true, args: append([]string{"--output-format", "stream-json", "--no-session", "-p", "x"}, tt.args...)})
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", tt.name, r.code, r.stderr)
		}
		_, err := os.Stat(log)
		if ran := err == nil; ran != tt.git {
			started, _ := os.ReadFile(log)
			t.Errorf("%s: git started = %v, want %v (%q)", tt.name, ran, tt.git, started)
		}
		res := lastResult(t, r)
		if got := strings.Join(changedFiles(t, res), "|"); got != tt.want {
			t.Errorf("%s: files_changed = %q, want %q", tt.name, got, tt.want)
		}
		if unseen := res["files_unseen"] != nil; unseen != (tt.args != nil) {
			t.Errorf("%s: files_unseen = %v", tt.name, res["files_unseen"])
		}
	}
}

// TestFilesChangedInTextMode: the closing line on stderr counts the changed files.
func TestFilesChangedInTextMode(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"a.txt","content":"a\n"}`)), scripted.Text("Done."))
	r := kimi(t, srv, invocation{args: []string{"-p", "x"}})
	if r.code != 0 || r.stdout != "Done.\n" || !strings.Contains(r.stderr, "tool_calls=1 files_changed=1 ") {
		t.Errorf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}
