//go:build unix

package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Below a held root no call follows a link, and the root stays the directory it was when
// held though its name is swapped for a link.
func TestHeldRootFollowsNoLink(t *testing.T) {
	work, outside := tree(t)
	release, err := Hold(work)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if d, err := Dir(filepath.Join(work, "out", "new"), true, 0o700); !errors.Is(err, ErrLink) {
		if d != nil {
			d.Close()
		}
		t.Errorf("Dir through a link: %v, want ErrLink", err)
	}
	if f, err := Open(filepath.Join(work, "out", "x"), os.O_WRONLY|os.O_CREATE, 0o600); !errors.Is(err, ErrLink) {
		if f != nil {
			f.Close()
		}
		t.Errorf("Open through a link: %v, want ErrLink", err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := RemoveAllPath(filepath.Join(work, "out", "keep")); !errors.Is(err, ErrLink) {
		t.Errorf("RemoveAllPath through a link: %v, want ErrLink", err)
	}
	if err := RemoveAllPath(filepath.Join(work, "out")); err != nil {
		t.Errorf("RemoveAllPath of the link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the link's target lost its file: %v", err)
	}
	// The root's name swapped for a link: the held handle still leads to the original.
	moved := work + ".moved"
	if err := os.Rename(work, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, work); err != nil {
		t.Fatal(err)
	}
	d, err := Dir(filepath.Join(work, "sub", "made"), true, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := os.Stat(filepath.Join(moved, "sub", "made")); err != nil {
		t.Errorf("not made in the held root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "sub")); err == nil {
		t.Error("made through the swapped root")
	}
}

func TestRemoveAllRemovesATree(t *testing.T) {
	work, outside := tree(t)
	if err := os.WriteFile(filepath.Join(work, "sub", "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.Open(filepath.Dir(work))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := RemoveAll(root, "work"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("work left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the link's target lost its file: %v", err)
	}
}

// The held root itself, opened by Dir, is a handle of its own: reading it twice lists it
// twice (a handle sharing the held one's offset would list nothing the second time).
func TestHeldRootReadsWhole(t *testing.T) {
	work, _ := tree(t)
	release, err := Hold(work)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for i := range 2 {
		d, err := Dir(work, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil || len(names) == 0 {
			t.Errorf("reading %d: %v, %v", i+1, names, err)
		}
	}
}
