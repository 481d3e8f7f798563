package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Epoch is the modification time WriteTree gives every entry, so that files with equal
// times sort by path and outputs are deterministic.
var Epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// WriteTree creates files below root from a map of slash-separated names to contents; a
// name ending in "/" makes an empty directory. Every entry below root, old or new, then
// gets Epoch as its modification time.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		WriteFile(t, p, content)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		return os.Chtimes(p, Epoch, Epoch)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes content to path, creating its parent directories.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Touch gives one entry below root the modification time Epoch+offset.
func Touch(t testing.TB, root, name string, offset time.Duration) {
	t.Helper()
	when := Epoch.Add(offset)
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(name)), when, when); err != nil {
		t.Fatal(err)
	}
}

// SymlinkOrSkip creates a symbolic link, or skips the test where links are not allowed.
func SymlinkOrSkip(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot create symbolic links here: %v", err)
	}
}
