package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/scripted"
	"github.com/kimi-run/kimi-run/internal/testkit"
	"github.com/kimi-run/kimi-run/session"
)

// sessionFiles reads what a session's folder holds that a fork must leave alone.
func sessionFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "kimi-run.lock" {
			b, _ := os.ReadFile(path)
			out[strings.TrimPrefix(path, dir)] = b
		}
		return nil
	})
	return out
}

// TestForkSession: --fork-session ID runs the prompt in a new session holding a copy of
// ID's conversation, and leaves ID as it was, byte for byte; the copy is named by
// --session or made up, says where it came from (init, kimi-run.json), and a fork of a
// session another run holds waits or fails as --session would (issue 32 #4).
func TestForkSession(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	srv := scripted.New(t,
		scripted.Text("Noted: the number is 7."),
		scripted.Text("It was 7."),
		scripted.Text("Still 7."),
	)
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", "src", "-p", "remember the number 7")}); r.code != 0 {
		t.Fatalf("run 1: exit %d\n%s", r.code, r.stderr)
	}
	before := sessionFiles(t, filepath.Join(sessions, "src"))

	r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--fork-session", "src", "-p", "which number?")})
	if r.code != 0 {
		t.Fatalf("fork: exit %d\n%s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	fork, _ := evs[0]["session_id"].(string)
	if fork == "" || fork == "src" || evs[0]["forked_from"] != "src" {
		t.Errorf("init: session_id %q, forked_from %v; want a new session forked from src", fork, evs[0]["forked_from"])
	}
	got := strings.Join(contents(srv, 1), "\n")
	for _, want := range []string{"user: remember the number 7", "assistant: Noted: the number is 7.", "user: which number?"} {
		if !strings.Contains(got, want) {
			t.Errorf("the fork's request lacks %q:\n%s", want, got)
		}
	}
	after := sessionFiles(t, filepath.Join(sessions, "src"))
	if len(after) != len(before) {
		t.Errorf("src's folder held %d files, now %d", len(before), len(after))
	}
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("the fork changed src's %s", name)
		}
	}
	meta, err := session.ReadMeta(filepath.Join(sessions, fork))
	if err != nil || meta.ForkedFrom != "src" || meta.Prompt != "remember the number 7" {
		t.Errorf("the fork's kimi-run.json: %+v, %v", meta, err)
	}
	// The fork goes on as a session of its own.
	if r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "-S", fork, "-p", "and now?")}); r.code != 0 {
		t.Fatalf("resuming the fork: exit %d\n%s", r.code, r.stderr)
	}
	if got := strings.Join(contents(srv, 2), "\n"); !strings.Contains(got, "assistant: It was 7.") {
		t.Errorf("the fork's second run lacks its first answer:\n%s", got)
	}

	for _, bad := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{name: "missing", args: []string{"--fork-session", "nope", "-p", "x"}, code: 2, want: "--fork-session nope: there is no such session"},
		{name: "name taken", args: []string{"--fork-session", fork, "-S", "src", "-p", "x"}, code: 2, want: "exists already, and is not a fork of " + fork + "; a fork needs a new name"},
	} {
		r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, bad.args...)})
		if r.code != bad.code || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", bad.name, r.code, r.stderr, bad.code, bad.want)
		}
	}

	// src's lock is respected: while another run holds src, a fork is busy (75).
	lock, err := session.TakeLock(context.Background(), filepath.Join(sessions, "src"), "src", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	r = kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, "--output-format", "stream-json", "--fork-session", "src", "-S", "while-busy", "-p", "x")})
	if r.code != 75 || lastResult(t, r)["terminal_reason"] != "busy" {
		t.Errorf("fork of a busy session: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(sessions, "while-busy")); !os.IsNotExist(err) {
		t.Errorf("a fork that did not happen left its folder: %v", err)
	}
}

// showCheckpoints reads --show-session's NDJSON: for each user prompt, the checkpoint just
// before it.
func showCheckpoints(t *testing.T, work, sessions, id string) map[string]int {
	t.Helper()
	r := kimi(t, nil, invocation{dir: work, env: map[string]string{"KIMI_API_KEY": ""},
		args: sessionArgs(sessions, "--show-session", id, "--output-format", "stream-json")})
	if r.code != 0 {
		t.Fatalf("--show-session: exit %d\n%s", r.code, r.stderr)
	}
	out, last := map[string]int{}, -1
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m["type"] == "checkpoint":
			last = int(m["id"].(float64))
		case m["role"] == "user":
			out[m["content"].(string)] = last
		}
	}
	return out
}

func readOr(path, missing string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return missing
	}
	return string(b)
}

// TestRewind: --rewind N continues a session from checkpoint N, the rest of the
// conversation kept in a backup file; --rewind-files also puts back the files WriteFile and
// StrReplaceFile changed since (deleting those that did not exist), keeping what they held,
// and says when something else had changed one meanwhile (issue 32 #4).
func TestRewind(t *testing.T) {
	t.Parallel()
	work, sessions := t.TempDir(), t.TempDir()
	writeFiles(t, work, map[string]string{"b.txt": "base\n"})
	srv := scripted.New(t,
		// Turn 1: a.txt made, b.txt edited.
		scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"a.txt","content":"v1\n"}`),
			scripted.Call("StrReplaceFile", `{"path":"b.txt","edit":{"old":"base","new":"edited"}}`)),
		scripted.Text("done one"),
		// Turn 2: a.txt rewritten, c.txt made.
		scripted.ToolCalls(scripted.Call("WriteFile", `{"path":"a.txt","content":"v2\n"}`),
			scripted.Call("WriteFile", `{"path":"c.txt","content":"new\n"}`)),
		scripted.Text("done two"),
		// Turn 2 again, after the rewind, and then the whole session again.
		scripted.Text("done two, differently"),
		scripted.Text("from scratch"),
	)
	run := func(args ...string) result {
		t.Helper()
		r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, append([]string{"-S", "s1", "--output-format", "stream-json"}, args...)...)})
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		return r
	}
	run("-p", "task one")
	run("-p", "task two")
	if a, c := readOr(filepath.Join(work, "a.txt"), "-"), readOr(filepath.Join(work, "c.txt"), "-"); a != "v2\n" || c != "new\n" {
		t.Fatalf("after two turns a.txt %q, c.txt %q", a, c)
	}
	cps := showCheckpoints(t, work, sessions, "s1")

	r := run("--rewind", itoa(cps["task two"]), "--rewind-files", "-p", "task two, differently")
	got := strings.Join(contents(srv, 4), "\n")
	if !strings.Contains(got, "assistant: done one") || strings.Contains(got, "task two\n") || strings.Contains(got, "done two") {
		t.Errorf("after the rewind the model was sent:\n%s", got)
	}
	rw := testkit.OfType(events(t, r.stdout), "session_rewind")
	if len(rw) != 1 {
		t.Fatalf("%d session_rewind events", len(rw))
	}
	backup, _ := rw[0]["backup"].(string)
	if b := readOr(backup, ""); !strings.Contains(b, "done two") {
		t.Errorf("the backup %s does not hold what was dropped", backup)
	}
	actions := fileActions(rw[0])
	if actions["a.txt"] != "restored" || actions["c.txt"] != "deleted" || actions["b.txt"] != "" {
		t.Errorf("files: %v; want a.txt restored, c.txt deleted, b.txt (changed before the checkpoint) left alone", rw[0]["files"])
	}
	if a, c, b := readOr(filepath.Join(work, "a.txt"), "-"), readOr(filepath.Join(work, "c.txt"), "-"), readOr(filepath.Join(work, "b.txt"), "-"); a != "v1\n" || c != "-" || b != "edited\n" {
		t.Errorf("after --rewind-files: a.txt %q, c.txt %q, b.txt %q", a, c, b)
	}

	// A person edits b.txt; a rewind to the session's start puts it back all the same,
	// says so, and keeps the person's text.
	os.WriteFile(filepath.Join(work, "b.txt"), []byte("a person's edit\n"), 0o644)
	r = run("--rewind", "0", "--rewind-files", "-p", "start again")
	rw = testkit.OfType(events(t, r.stdout), "session_rewind")
	var b map[string]any
	files, _ := rw[0]["files"].([]any)
	for _, f := range files {
		if f := f.(map[string]any); filepath.Base(f["path"].(string)) == "b.txt" {
			b = f
		}
	}
	if b == nil || b["action"] != "restored" || b["changed_outside"] != true || readOr(b["backup"].(string), "") != "a person's edit\n" {
		t.Errorf("b.txt: %v", b)
	}
	if a, bt := readOr(filepath.Join(work, "a.txt"), "-"), readOr(filepath.Join(work, "b.txt"), "-"); a != "-" || bt != "base\n" {
		t.Errorf("after --rewind 0: a.txt %q, b.txt %q", a, bt)
	}
	if got := contents(srv, 5); len(got) != 2 || got[1] != "user: start again" {
		t.Errorf("after --rewind 0 the model was sent %q", got)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-S", "s1", "--rewind", "99", "-p", "x"}, "--rewind 99: session s1 has checkpoints 0 to"},
		{[]string{"-S", "fresh", "--rewind", "0", "-p", "x"}, "session fresh has no conversation to rewind"},
	} {
		r := kimi(t, srv, invocation{dir: work, args: sessionArgs(sessions, bad.args...)})
		if r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", bad.args, r.code, r.stderr, bad.want)
		}
	}
}

// fileActions maps each file of a session_rewind event, by base name, to its action.
func fileActions(ev map[string]any) map[string]string {
	out := map[string]string{}
	files, _ := ev["files"].([]any)
	for _, f := range files {
		f := f.(map[string]any)
		out[filepath.Base(f["path"].(string))] = f["action"].(string)
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
