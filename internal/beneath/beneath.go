// Package beneath opens, makes and removes files below a root directory without following
// a symbolic link below it and without leaving it. The root itself is opened as given, its
// own links followed (a HOME that is a link works); what lies below it is resolved one step
// at a time, so that a link planted there (by a command of an earlier run, or swapped in
// meanwhile) fails the call instead of leading it elsewhere. On Linux 5.6 and later a path
// is resolved by one openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS; elsewhere on
// Unix by one O_NOFOLLOW open per component. Every file operation of kimi-run's own below
// a root it knows (the sandbox's writable dirs for the file tools, the work dir for a
// rewind and for what files_changed reads of the work tree, the parent of a missing
// --add-dir, the session dir) goes through here.
package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLink means a symbolic link, or a "..", lies on the way below the root.
var ErrLink = errors.New("a symbolic link lies on the way")

// linkError is a refused path: it is ErrLink and wraps the system's error.
type linkError struct{ errno error }

func (e linkError) Error() string        { return ErrLink.Error() }
func (e linkError) Is(target error) bool { return target == ErrLink }
func (e linkError) Unwrap() error        { return e.errno }

// OpenDir opens the directory rel (relative, slash- or OS-separated) below root. A root
// that is or lies below a held root (Hold) is reached from the held handle, following no
// link on the way.
func OpenDir(root, rel string) (*os.File, error) {
	return below(root, rel, false, 0)
}

// MkdirAll opens the directory rel below root as OpenDir does, first making each missing
// directory on the way with permissions perm (before the umask).
func MkdirAll(root, rel string, perm fs.FileMode) (*os.File, error) {
	return below(root, rel, true, perm)
}

func below(root, rel string, create bool, perm fs.FileMode) (*os.File, error) {
	root = filepath.Clean(root)
	if h, hrel, ok := lookup(root); ok {
		return openHeld(h, filepath.Join(root, rel), filepath.Join(hrel, rel), create, perm)
	}
	return open(root, rel, create, perm)
}

// Split returns the root, of roots, that path lies below (the longest) and path relative to
// it; a path below none has its own directory as its root, so that only its last name is
// guarded. Both path and the roots are absolute and clean; a root is matched as written and
// as its links resolve.
func Split(path string, roots []string) (root, rel string) {
	best := ""
	try := func(r string) {
		if within(path, r) && len(r) > len(best) {
			best = r
		}
	}
	for _, r := range roots {
		try(r)
		if real, err := filepath.EvalSymlinks(r); err == nil {
			try(real)
		}
	}
	if best == "" {
		return filepath.Dir(path), filepath.Base(path)
	}
	rel, _ = filepath.Rel(best, path)
	return best, rel
}

func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// names splits rel into its components, without empty ones and ".".
func names(rel string) []string {
	var out []string
	for _, n := range strings.Split(filepath.ToSlash(rel), "/") {
		if n != "" && n != "." {
			out = append(out, n)
		}
	}
	return out
}
