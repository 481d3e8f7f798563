package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// leftovers lists the temporary files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		old  func(t *testing.T, dir, path string) // what is at path before
		perm os.FileMode
	}{
		{name: "new file", perm: 0o600},
		{name: "new file readable by others, whatever the umask", perm: 0o644},
		{name: "replaces a file", perm: 0o600, old: func(t *testing.T, _, path string) {
			os.WriteFile(path, []byte("old content that is longer than the new"), 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if tt.old != nil {
				tt.old(t, dir, path)
			}
			if err := Write(path, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			if got := read(t, path); got != "new" {
				t.Errorf("content %q", got)
			}
			if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != tt.perm {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.perm)
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("temporary files left: %v", l)
			}
		})
	}
}

// A link at the name is replaced, never written through: the file it pointed at keeps its
// content (the write tools rely on this under the sandbox).
func TestWriteReplacesLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("target"), 0o600)
	for name, link := range map[string]func(string, string) error{"symlink": os.Symlink, "hard link": os.Link} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := link(target, path); err != nil {
				t.Fatal(err)
			}
			if err := Write(path, []byte("new"), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := read(t, target); got != "target" {
				t.Errorf("written through the %s: target holds %q", name, got)
			}
			if fi, _ := os.Lstat(path); !fi.Mode().IsRegular() || read(t, path) != "new" {
				t.Errorf("%s not replaced by a regular file", name)
			}
		})
	}
}

// A failed replacement leaves the name as it was and no temporary file.
func TestWriteFailureKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("write into a missing directory: %v", err)
	}
	// A name that a rename cannot replace: a directory holding a file.
	busy := filepath.Join(dir, "busy")
	os.MkdirAll(filepath.Join(busy, "inside"), 0o700)
	if err := Write(busy, []byte("x"), 0o600); err == nil {
		t.Error("replaced a directory")
	}
	if fi, err := os.Stat(filepath.Join(busy, "inside")); err != nil || !fi.IsDir() {
		t.Errorf("the directory changed: %v", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o600)
	f, err := Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Discard()
	f.Discard()
	if got := read(t, path); got != "old" {
		t.Errorf("after Discard: %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Discard succeeded")
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}

	f, err = Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Discard() // after Commit: nothing
	if _, err := f.Write([]byte("more")); err == nil {
		t.Error("Write after Commit succeeded")
	}
	if got := read(t, path); got != "new" {
		t.Errorf("after Commit and Discard: %q", got)
	}
}

// Readers racing a writer see one content or the other, whole, never a mix or nothing.
func TestReadersSeeOldOrNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	contents := [][]byte{bytes.Repeat([]byte("a"), 256<<10), bytes.Repeat([]byte("b"), 64<<10)}
	if err := Write(path, contents[0], 0o600); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	bad := make(chan string, 1)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				b, err := os.ReadFile(path)
				if err != nil && runtime.GOOS == "windows" && errors.Is(err, syscall.Errno(5)) {
					continue // Windows refuses to open a file while it is renamed over
				}
				if err != nil || !(bytes.Equal(b, contents[0]) || bytes.Equal(b, contents[1])) {
					select {
					case bad <- string(b[:min(len(b), 20)]):
					default:
					}
					return
				}
			}
		}()
	}
	for i := range 200 {
		if err := Write(path, contents[i%2], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	select {
	case b := <-bad:
		t.Errorf("a reader saw neither content whole (%q...)", b)
	default:
	}
}

// BenchmarkWrite is the cost of one replacement of a small file (what WriteFile, the meta
// file and last-session pay): file sync, rename, directory sync. "nosync" is a plain
// write-and-rename, for comparison (docs/performance.md).
func BenchmarkWrite(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "f")
	data := bytes.Repeat([]byte("x"), 4<<10)
	b.Run("atomicfile", func(b *testing.B) {
		for b.Loop() {
			if err := Write(path, data, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("filesync", func(b *testing.B) {
		for b.Loop() {
			f, err := os.CreateTemp(dir, ".f.*.tmp")
			if err != nil {
				b.Fatal(err)
			}
			f.Write(data)
			f.Sync()
			f.Close()
			if err := os.Rename(f.Name(), path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nosync", func(b *testing.B) {
		for b.Loop() {
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				b.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCommitVisible checks that the new content is in place, whole and with its
// permissions, as soon as CommitVisible returns, before its syncs, and that the syncs leave
// nothing behind.
func TestCommitVisible(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "meta.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	if _, err := f.Write([]byte("new content")); err != nil {
		t.Fatal(err)
	}
	sync, err := f.CommitVisible()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "new content" {
		t.Errorf("before the sync the name holds %q", got)
	}
	if info, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o600) {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
	if err := sync(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "new content" {
		t.Errorf("after the sync the name holds %q", got)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a write after the commit: %v", err)
	}
}

// TestSyncBeforeCommit checks a replacement synced ahead of its commit: the name keeps its
// old content until the commit, nothing more can be written, and a commit or a discard
// after it leaves no temporary file.
func TestSyncBeforeCommit(t *testing.T) {
	for _, commit := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "last")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Create(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
			t.Errorf("a write after Sync: %v", err)
		}
		if got := read(t, path); got != "old" {
			t.Errorf("after Sync the name holds %q", got)
		}
		want := "old"
		if commit {
			want = "new"
			sync, err := f.CommitVisible()
			if err != nil {
				t.Fatal(err)
			}
			if err := sync(); err != nil {
				t.Fatal(err)
			}
		}
		f.Discard()
		if got := read(t, path); got != want {
			t.Errorf("commit %v: the name holds %q, want %q", commit, got, want)
		}
		if info, err := os.Stat(path); commit && (err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o600)) {
			t.Errorf("mode %v, %v", info.Mode(), err)
		}
		if l := leftovers(t, dir); len(l) != 0 {
			t.Errorf("commit %v: left behind %v", commit, l)
		}
	}
}
