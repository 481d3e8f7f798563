package beneath

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// A held root is a directory opened once, by its path (its own links followed), whose
// handle every later call for a path below it starts from: a command that swaps the root,
// or a folder below it, for a link meanwhile leads no call elsewhere. kimi-run holds the
// folder of its sessions for the run, so that every write in a session's folder, whatever
// code makes it, resolves there.
var held struct {
	sync.Mutex
	roots map[string]*heldRoot
}

type heldRoot struct {
	f *os.File
	n int
}

// Hold opens the directory root (absolute, clean) and keeps it open until release is
// called; paths below it are then opened relative to that handle by Dir, Open, Remove and
// RemoveAll. Holding a root twice is counted.
func Hold(root string) (release func(), err error) {
	held.Lock()
	defer held.Unlock()
	if h := held.roots[root]; h != nil {
		h.n++
		return func() { drop(root) }, nil
	}
	f, err := openPath(root)
	if err != nil {
		return nil, err
	}
	if held.roots == nil {
		held.roots = map[string]*heldRoot{}
	}
	held.roots[root] = &heldRoot{f: f, n: 1}
	return func() { drop(root) }, nil
}

func drop(root string) {
	held.Lock()
	defer held.Unlock()
	if h := held.roots[root]; h != nil {
		if h.n--; h.n == 0 {
			h.f.Close()
			delete(held.roots, root)
		}
	}
}

// lookup returns a handle of its own (openHeld closes it) on the held root that dir
// (absolute, clean) is or lies below, the longest, and dir relative to it; ok is false when
// there is none. The handle is taken under the lock, so that a release meanwhile cannot
// close it.
func lookup(dir string) (root heldFD, rel string, ok bool) {
	held.Lock()
	defer held.Unlock()
	best := ""
	for r := range held.roots {
		if (dir == r || within(dir, r)) && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return root, "", false
	}
	rel, _ = filepath.Rel(best, dir)
	root, err := dupHeld(held.roots[best].f)
	return root, rel, err == nil
}

// Dir opens the directory dir (absolute), making it and its missing parents with perm when
// create is set. Below a held root no link is followed from that root on (ErrLink);
// elsewhere dir is opened by its path, as os.Open does (but a FIFO there is not waited on).
func Dir(dir string, create bool, perm fs.FileMode) (*os.File, error) {
	dir = filepath.Clean(dir)
	if root, rel, ok := lookup(dir); ok {
		return openHeld(root, dir, rel, create, perm)
	}
	if create {
		if err := os.MkdirAll(dir, perm); err != nil {
			return nil, err
		}
	}
	return openPath(dir)
}

// Open opens the file at path (absolute) as OpenFile does in its directory, opened by Dir:
// no link is followed at its name, nor below a held root.
func Open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	dir, err := Dir(filepath.Dir(path), false, 0)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return OpenFile(dir, filepath.Base(path), flag, perm)
}

// RemovePath removes the file at path (absolute; a link there is removed, not followed), its
// directory opened by Dir.
func RemovePath(path string) error {
	dir, err := Dir(filepath.Dir(path), false, 0)
	if err != nil {
		return err
	}
	defer dir.Close()
	return Remove(dir, filepath.Base(path))
}

// RemoveAllPath removes path and what it holds, as os.RemoveAll does, its directory opened
// by Dir: a link there or inside is removed, not followed. A missing path is no error.
func RemoveAllPath(path string) error {
	dir, err := Dir(filepath.Dir(path), false, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer dir.Close()
	return RemoveAll(dir, filepath.Base(path))
}

// LinkPath makes the hard link to (absolute) to the file from (absolute), each directory
// opened by Dir and no link followed at either name.
func LinkPath(from, to string) error {
	fromDir, err := Dir(filepath.Dir(from), false, 0)
	if err != nil {
		return err
	}
	defer fromDir.Close()
	toDir, err := Dir(filepath.Dir(to), false, 0)
	if err != nil {
		return err
	}
	defer toDir.Close()
	return Link(fromDir, filepath.Base(from), toDir, filepath.Base(to))
}
