//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenDir(t *testing.T) {
	root := t.TempDir()
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(work, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(work, "out")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: WorkspaceWrite, Writable: []string{work}}
	f, err := p.OpenDir(filepath.Join(work, "sub"))
	if err != nil {
		t.Fatalf("a directory in the work dir: %v", err)
	}
	f.Close()
	var denied *DeniedError
	for _, dir := range []string{outside, filepath.Join(work, "out"), filepath.Join(work, "..", "outside")} {
		if f, err := p.OpenDir(dir); !errors.As(err, &denied) {
			if f != nil {
				f.Close()
			}
			t.Errorf("OpenDir(%s) = %v, want it denied", dir, err)
		}
	}
}
