//go:build unix

package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// tree makes root/work/sub, root/outside and the link root/work/out -> outside.
func tree(t *testing.T) (work, outside string) {
	t.Helper()
	root := t.TempDir()
	work, outside = filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(work, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(work, "out")); err != nil {
		t.Fatal(err)
	}
	return work, outside
}

func TestOpenDirFollowsNoLinkBelowTheRoot(t *testing.T) {
	work, _ := tree(t)
	// The root itself may be reached through a link.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(work, alias); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(string, string) (*os.File, error){OpenDir, func(r, rel string) (*os.File, error) { return MkdirAll(r, rel, 0o755) }} {
		f, err := open(alias, "sub")
		if err != nil {
			t.Fatalf("sub below a linked root: %v", err)
		}
		f.Close()
		for _, rel := range []string{"out", "out/new", "sub/../out", "../work/sub"} {
			if f, err := open(alias, rel); !errors.Is(err, ErrLink) {
				if f != nil {
					f.Close()
				}
				t.Errorf("%s: %v, want ErrLink", rel, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(work, "out", "new")); err == nil {
		t.Error("MkdirAll made a directory through the link")
	}
}

// The walk for kernels without openat2 follows no link either.
func TestWalkFollowsNoLink(t *testing.T) {
	work, _ := tree(t)
	for _, create := range []bool{false, true} {
		root, err := os.Open(work)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := walk(int(root.Fd()), []string{"out", "x"}, create, 0o755)
		if !errors.Is(err, unix.ELOOP) {
			t.Errorf("walk through a link (create %v): fd %d, %v", create, fd, err)
		}
		root.Close()
	}
}

func TestMkdirAllMakesTheMissing(t *testing.T) {
	work, _ := tree(t)
	f, err := MkdirAll(work, "a/b/c", 0o755)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if info, err := os.Stat(filepath.Join(work, "a", "b", "c")); err != nil || !info.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
}

func TestOpenFileAndRemoveFollowNoLink(t *testing.T) {
	work, outside := tree(t)
	if err := os.WriteFile(filepath.Join(outside, "x"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x"), filepath.Join(work, "sub", "x")); err != nil {
		t.Fatal(err)
	}
	dir, err := OpenDir(work, "sub")
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if f, err := OpenFile(dir, "x", os.O_RDONLY, 0); !errors.Is(err, ErrLink) {
		if f != nil {
			f.Close()
		}
		t.Errorf("OpenFile of a link: %v, want ErrLink", err)
	}
	if err := Remove(dir, "x"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "x")); string(b) != "keep" {
		t.Errorf("the link's target holds %q", b)
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		path      string
		roots     []string
		root, rel string
	}{
		{"/w/a/b.txt", []string{"/w", "/w/a"}, "/w/a", "b.txt"},
		{"/w/a/b.txt", []string{"/x"}, "/w/a", "b.txt"},
		{"/wx/b.txt", []string{"/w"}, "/wx", "b.txt"},
	} {
		if root, rel := Split(c.path, c.roots); root != c.root || rel != c.rel {
			t.Errorf("Split(%s, %v) = %s, %s; want %s, %s", c.path, c.roots, root, rel, c.root, c.rel)
		}
	}
}
