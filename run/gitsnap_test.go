package run

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
func TestGitSnapshotLeavesTheRepositoryAlone(t *testing.T) {
	t.Parallel()
	top := gitInit(t, map[string]string{"work/a.txt": "a\n", "work/b.bin": "\x00\x01", "other/o.txt": "o\n"})
	work := filepath.Join(top, "work")
	before := gitState(t, top)
	ctx := context.Background()
	g := gitRunner{}
	repos, unseen := findRepos(ctx, g, []string{realDir(work)})
	if len(repos) != 1 || len(unseen) != 0 || repos[0].top != realDir(top) {
		t.Fatalf("repos %+v, unseen %v", repos, unseen)
	}
	r := repos[0]
	defer r.close()
	if err := r.snapshot(ctx, g); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\nA\n"), 0o644)
	os.WriteFile(filepath.Join(work, "b.bin"), []byte("\x00\x02"), 0o644)
	os.WriteFile(filepath.Join(work, "new.txt"), []byte("n\n"), 0o644)
	os.WriteFile(filepath.Join(top, "other", "o.txt"), []byte("changed\n"), 0o644)
	diff, err := r.changes(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, c := range diff {
		rel, _ := filepath.Rel(realDir(top), p)
		got = append(got, rel+" "+string(c.status)+" "+jsonNum(c.added)+" "+jsonNum(c.removed)+" "+map[bool]string{true: "binary", false: "text"}[c.binary])
	}
	want := map[string]bool{"work/a.txt M 1 0 text": true, "work/b.bin M 0 0 binary": true, "work/new.txt A 1 0 text": true}
	if len(got) != len(want) {
		t.Errorf("changes = %v", got)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("unexpected change %q in %v", g, got)
		}
	}
	if gitState(t, top) != before {
		t.Errorf("the repository's .git changed")
	}
	tmp := r.tmp
	r.close()
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the snapshot's temp dir %s is left behind", tmp)
	}
}

func jsonNum(n int) string { return fmt.Sprint(n) }
