// Package atomicfile replaces files so that nobody ever sees one half written.
//
// Every caller gets the same guarantee. At any moment, and after a crash or a power loss at
// any moment, the name holds either its old content or the new content whole. When Write
// or Commit returns nil the new content is at the name, synced to disk before the rename;
// the directory is synced after the rename where the file system allows (not on Windows,
// and not on the few that refuse: that is not reported, since the rename has happened and
// a crash can then only bring back the old content, whole). When they return an error the
// name keeps its old content. The new content goes to a hidden temporary file in the same
// directory (".NAME.<random>.tmp"), created without following a link and renamed over the
// name, so a symbolic or hard link at the name is replaced, never written through. The
// temporary file is removed on failure; only a process killed between its creation and the
// rename leaves one behind.
//
// CommitVisible is the one exception, asked for by name: the rename comes before the syncs,
// which the caller runs later (see its comment). Sync, then CommitVisible, keeps the
// guarantee and leaves only the directory's sync for later: a caller replacing several
// files syncs them all, then renames them, so that their fsyncs overlap.
//
// Files that grow record by record (the session's context file, a cassette) are logs, not
// replaced files: they append whole lines and are not written through this package.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kimi-run/kimi-run/internal/beneath"
)

// Write replaces the file at path with data, with permissions perm (not reduced by the
// umask).
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	return fill(f, err, data)
}

// WriteIn replaces the file name in the open directory dir with data. Callers that opened
// the directory without following links (the write tools under the sandbox) use it so that
// nothing is looked up by path again.
func WriteIn(dir *os.File, name string, data []byte, perm fs.FileMode) error {
	f, err := CreateIn(dir, name, perm)
	return fill(f, err, data)
}

// fill writes data to the replacement f that Create or CreateIn made (or failed to make,
// err) and commits it.
func fill(f *File, err error, data []byte) error {
	if err != nil {
		return err
	}
	defer f.Discard()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is a replacement being written: Write to it, then Commit to put it in place, or
// Discard to drop it. Discard after Commit does nothing, so `defer f.Discard()` is safe.
type File struct {
	dir    *os.File
	ownDir bool
	name   string
	tmp    string
	f      *os.File
	perm   fs.FileMode
	done   bool
}

// Create starts a replacement of the file at path. Its directory is opened by beneath.Dir:
// below a root kimi-run holds (its sessions' folder) no link is followed.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, err := beneath.Dir(filepath.Dir(path), false, 0)
	if err != nil {
		return nil, err
	}
	f, err := CreateIn(dir, filepath.Base(path), perm)
	if err != nil {
		dir.Close()
		return nil, err
	}
	f.ownDir = true
	return f, nil
}

// CreateIn starts a replacement of the file name in the open directory dir, which must stay
// open until Commit or Discard.
func CreateIn(dir *os.File, name string, perm fs.FileMode) (*File, error) {
	f, tmp, err := createTemp(dir, name)
	if err != nil {
		return nil, err
	}
	return &File{dir: dir, name: name, tmp: tmp, f: f, perm: perm}, nil
}

// Write writes to the replacement; not after Sync.
func (f *File) Write(p []byte) (int, error) {
	if f.done || f.f == nil {
		return 0, os.ErrClosed
	}
	return f.f.Write(p)
}

// Sync sets the replacement's permissions, syncs and closes it, still under its temporary
// name: Commit then only renames it and syncs the directory. Callers replacing several
// files sync them at once, so that their fsyncs share the disk's journal commits. On
// failure the replacement is dropped.
func (f *File) Sync() error {
	if f.done {
		return os.ErrClosed
	}
	if f.f == nil {
		return nil
	}
	err := f.f.Chmod(f.perm)
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	f.f = nil
	if err != nil {
		f.drop()
	}
	return err
}

// Commit puts the replacement in place: it syncs the file (Sync), renames it over the name
// and syncs the directory (see the package comment). On failure the name keeps its old
// content and the replacement is dropped.
func (f *File) Commit() error {
	if err := f.Sync(); err != nil {
		return err
	}
	sync, err := f.CommitVisible()
	if err != nil {
		return err
	}
	return sync()
}

// CommitVisible puts the replacement in place as Commit does, but returns once the rename
// is done, before the syncs, which the returned func makes (and closes what is left open);
// it must be called once. The directory is synced even when the file's sync fails. Unless
// Sync came first, every process sees the new content whole from the rename on, but a crash
// of the machine (not of the process) before the syncs may leave the name empty: a reader
// must take an unreadable file for a missing one. For a record that must be visible at once
// and durable soon (the session's start), so that its fsyncs can overlap other work. After
// Sync it keeps Commit's guarantee, and only the directory's sync is left for later.
func (f *File) CommitVisible() (sync func() error, err error) {
	if f.done {
		return nil, os.ErrClosed
	}
	if f.f != nil {
		err = f.f.Chmod(f.perm)
	}
	if err == nil {
		err = rename(f.dir, f.tmp, f.name)
	}
	if err != nil {
		f.Discard()
		return nil, err
	}
	f.done = true
	return func() error {
		defer f.closeDir()
		if f.f == nil {
			syncDir(f.dir) // after Sync
			return nil
		}
		// The two syncs go on together: until both have ended a crash may leave the name
		// empty whatever their order, and the disk commits them at once.
		dirSynced := make(chan struct{})
		go func() { syncDir(f.dir); close(dirSynced) }()
		err := f.f.Sync()
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		<-dirSynced
		return err
	}, nil
}

// Discard drops the replacement; the name keeps its old content. It does nothing after
// Commit.
func (f *File) Discard() {
	if f.done {
		return
	}
	if f.f != nil {
		f.f.Close()
	}
	f.drop()
}

func (f *File) drop() {
	f.done = true
	remove(f.dir, f.tmp)
	f.closeDir()
}

func (f *File) closeDir() {
	if f.ownDir {
		f.dir.Close()
	}
}

// SyncDir makes the creation, removal or renaming of a name in dir durable, where the file
// system allows; like Commit, it reports nothing. dir is opened by beneath.Dir: below a held
// root, from its handle.
func SyncDir(dir string) {
	if d, err := beneath.Dir(dir, false, 0); err == nil {
		syncDir(d)
		d.Close()
	}
}

// errNoTemp is returned when no free temporary name was found.
var errNoTemp = errors.New("no free temporary file name")
