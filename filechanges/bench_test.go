package filechanges

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchRepo is a committed repository of n files of 20 lines in directories of 100, the
// shape of a source tree, made once per size.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	// Written an hour "ago", as a checkout's files are older than its index: files as new
	// as the index would be racily clean, and every status would read them all.
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := benchFile(dir, i)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, benchContent, 0o644); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// benchContent is a source file of 20 lines.
var benchContent = func() []byte {
	var b []byte
	for i := range 20 {
		b = fmt.Appendf(b, "line %d of a source file, long enough to be typical\n", i)
	}
	return b
}()

func benchFile(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("pkg%04d", i/100), fmt.Sprintf("file%03d.go", i%100))
}

// BenchmarkFilesChanged measures what files_changed costs a run whose commands may change
// files in a git repository: the snapshot before the first command (find the repository,
// copy the index, add and write a tree) and the comparison at the end with ten files
// changed (add, write a tree, two diff-trees), beside a plain `git status` of the same
// tree for scale. Figures in docs/performance.md ("files_changed").
//
//	go test ./filechanges -run '^$' -bench FilesChanged -benchtime 10x
func BenchmarkFilesChanged(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1_000, 10_000, 50_000} {
		dir := benchRepo(b, n)
		b.Run(fmt.Sprintf("files=%d/git-status", n), func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("git", "status", "--porcelain")
				cmd.Dir = dir
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("files=%d/snapshot", n), func(b *testing.B) {
			for b.Loop() {
				tr := New(Config{WorkDir: dir, Warn: func(w string) { b.Fatal(w) }})
				tr.beforeCommand(ctx)
				b.StopTimer()
				tr.state.remove()
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("files=%d/compare", n), func(b *testing.B) {
			for i := range 10 {
				os.WriteFile(benchFile(dir, i), benchContent, 0o644) // as committed
			}
			tr := New(Config{WorkDir: dir, Warn: func(w string) { b.Fatal(w) }})
			tr.beforeCommand(ctx)
			defer tr.state.remove()
			for i := range 10 {
				os.WriteFile(benchFile(dir, i), []byte("changed\n"), 0o644)
			}
			for b.Loop() {
				diff, err := tr.git.changes(ctx, tr.repos[0])
				if err != nil || len(diff) != 10 {
					b.Fatalf("%d changes, %v", len(diff), err)
				}
			}
		})
	}
}
