package filechanges

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitInit makes a repository in a new temp dir, with files committed.
func gitInit(t testing.TB, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// gitState is a digest of a repository's .git directory: every file's name and content.
func gitState(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			h.Write([]byte(p))
			h.Write(b)
		}
		return nil
	})
	return string(h.Sum(nil))
}

// TestGitSnapshotLeavesTheRepositoryAlone: taking the state of a work dir and comparing it
// later writes nothing into the repository (its index and objects stay as they were), and
// lists what changed in the work dir only: not in a sibling dir of the same repository.
// The tracker's state is gone once it has listed the changes.
func TestGitSnapshotLeavesTheRepositoryAlone(t *testing.T) {
	t.Parallel()
	top := gitInit(t, map[string]string{"work/a.txt": "a\n", "work/b.bin": "\x00\x01", "other/o.txt": "o\n"})
	work := filepath.Join(top, "work")
	before := gitState(t, top)
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "changes")
	tr := New(Config{WorkDir: work, State: state, Warn: func(w string) { t.Error(w) }})
	tr.beforeCommand(ctx)
	if len(tr.repos) != 1 || len(tr.unseen) != 0 || tr.repos[0].Top != realDir(top) {
		t.Fatalf("repos %+v, unseen %v", tr.repos, tr.unseen)
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\nA\n"), 0o644)
	os.WriteFile(filepath.Join(work, "b.bin"), []byte("\x00\x02"), 0o644)
	os.WriteFile(filepath.Join(work, "new.txt"), []byte("n\n"), 0o644)
	os.WriteFile(filepath.Join(top, "other", "o.txt"), []byte("changed\n"), 0o644)
	list, unseen, _ := tr.Collect(ctx)
	var got []string
	for _, c := range list {
		got = append(got, fmt.Sprintf("%s %s %d %d %v", c.Path, c.Change, c.LinesAdded, c.LinesRemoved, c.Binary))
	}
	want := []string{"a.txt modified 1 0 false", "b.bin modified 0 0 true", "new.txt created 1 0 false"}
	if fmt.Sprint(got) != fmt.Sprint(want) || unseen != nil {
		t.Errorf("changes = %q, unseen %v; want %q", got, unseen, want)
	}
	if gitState(t, top) != before {
		t.Errorf("the repository's .git changed")
	}
	if _, err := os.Stat(state); err == nil {
		t.Errorf("the tracker's state %s is left behind", state)
	}
}

// TestStateIsTakenUpByTheSameTurnOnly: what a tracker that never collected (a killed run)
// kept is taken up by a tracker of the same turn, and removed by one of another turn or of
// none.
func TestStateIsTakenUpByTheSameTurnOnly(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	state := filepath.Join(t.TempDir(), "changes")
	kill := func() {
		tr := New(Config{WorkDir: work, State: state, Turn: "fix it"})
		tr.remember(filepath.Join(realDir(work), "a.txt"))
		tr.state.f.Close() // the process is gone; its log stays
	}
	for _, tt := range []struct {
		turn string
		want int
	}{{"fix it", 1}, {"something else", 0}, {"", 0}} {
		kill()
		tr := New(Config{WorkDir: work, State: state, Turn: tt.turn})
		if len(tr.touched) != tt.want {
			t.Errorf("turn %q took up %d files, want %d", tt.turn, len(tr.touched), tt.want)
		}
		if _, err := os.Stat(state); (err == nil) != (tt.want == 1) {
			t.Errorf("turn %q: the state is there = %v", tt.turn, err == nil)
		}
		os.RemoveAll(state)
	}
}

// TestStateKeepsNoSecret: the content of a file that holds one of the run's credentials is
// not written to the state; the file is still listed, without line counts.
func TestStateKeepsNoSecret(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	p := filepath.Join(realDir(work), "cfg.txt")
	os.WriteFile(p, []byte("key = sk-test-secret\n"), 0o644)
	state := filepath.Join(t.TempDir(), "changes")
	tr := New(Config{WorkDir: work, State: state, Turn: "x", Secret: func(s string) bool { return strings.Contains(s, "sk-test-secret") }})
	tr.remember(p)
	log, _ := os.ReadFile(filepath.Join(state, logName))
	if !strings.Contains(string(log), "cfg.txt") || strings.Contains(string(log), `"content"`) {
		t.Errorf("the state's log holds the content of a file with a secret:\n%s", log)
	}
	tr.state.f.Close()
	os.WriteFile(p, []byte("key = none\n"), 0o644)
	list, _, _ := New(Config{WorkDir: work, State: state, Turn: "x"}).Collect(context.Background())
	if len(list) != 1 || list[0].Path != "cfg.txt" || list[0].Change != "modified" || !list[0].Binary {
		t.Errorf("a resumed run lists %+v, want cfg.txt modified without line counts", list)
	}
}
